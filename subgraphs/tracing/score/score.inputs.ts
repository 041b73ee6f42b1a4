import { typedInput } from '../../../platform/graphql/typed-input.js';
import { EvaluationRunCreateBody, EvaluationRunFinishBody, PredictionCreateBody, ScoreCreateBody } from './score.schemas.js';

/** The GraphQL inputs of the evaluation API, generated from the REST request schemas (one contract). */
export const ScoreCreateInput = typedInput(ScoreCreateBody);
export const PredictionCreateInput = typedInput(PredictionCreateBody);
export const EvaluationRunCreateInput = typedInput(EvaluationRunCreateBody);
export const EvaluationRunFinishInput = typedInput(EvaluationRunFinishBody);

/** The whole REST body is the input. */
export const AT_BODY = { arg: 'input', wire: ['body'] };
