import { typedInput } from '../../../platform/graphql/typed-input.js';
import { DatasetEvaluationSchema } from './dataset-evaluation.schemas.js';

/** The GraphQL input of evaluateDataset, generated from the schema the service validates with (scorers: the monitors' MonitorScorerInput). */
export const DatasetEvaluationInput = typedInput(DatasetEvaluationSchema);

/** The whole input is the validated body: issues at `["body", …]` are reported at `["input", …]`. */
export const AT_INPUT = { arg: 'input', wire: ['body'] };
