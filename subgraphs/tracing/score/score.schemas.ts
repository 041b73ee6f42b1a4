import { Type, type Static } from '@sinclair/typebox';
import { FreeObject, OptionalNullable } from '../schema-helpers.js';

const evaluationRunId = OptionalNullable(Type.String({ minLength: 1, description: 'The evaluation run it belongs to, if any' }));

/** ScoreCreateBody of the spec; the project comes from the path. */
export const ScoreCreateBody = Type.Object(
  {
    prediction_id: Type.String({ minLength: 1, description: 'The prediction scored' }),
    scorer: Type.String({ minLength: 1, description: 'The scorer, as an object ref (`weave:///<entity>/<project>/object/<Name>:<digest>`)' }),
    value: Type.Unknown({ description: "The scorer's output (any JSON value)" }),
    evaluation_run_id: evaluationRunId,
  },
  { additionalProperties: false, graphqlName: 'ScoreCreateInput', description: "A scorer's output for a prediction" },
);
export type ScoreCreateBody = Static<typeof ScoreCreateBody>;

export const PredictionCreateBody = Type.Object(
  {
    model: Type.String({ minLength: 1, description: 'The model that predicted: an object ref or a name' }),
    inputs: FreeObject({ description: 'The inputs it was given, by name' }),
    output: Type.Unknown({ description: 'What it answered (any JSON value)' }),
    evaluation_run_id: evaluationRunId,
  },
  { additionalProperties: false, graphqlName: 'PredictionCreateInput', description: 'One model call that scores can point at' },
);
export type PredictionCreateBody = Static<typeof PredictionCreateBody>;

export const EvaluationRunCreateBody = Type.Object(
  {
    evaluation: Type.String({ minLength: 1, description: 'The evaluation run: an object ref or a name' }),
    model: Type.String({ minLength: 1, description: 'The model evaluated: an object ref or a name' }),
  },
  { additionalProperties: false, graphqlName: 'EvaluationRunCreateInput', description: 'An evaluation of a model that starts' },
);
export type EvaluationRunCreateBody = Static<typeof EvaluationRunCreateBody>;

export const EvaluationRunFinishBody = Type.Object(
  { summary: OptionalNullable(FreeObject({ description: "The run's results (free-form; becomes the run call's output)" })) },
  { additionalProperties: false, graphqlName: 'EvaluationRunFinishInput', description: 'The end of an evaluation run' },
);
export type EvaluationRunFinishBody = Static<typeof EvaluationRunFinishBody>;
