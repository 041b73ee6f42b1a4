import { typedInput } from '../../../platform/graphql/typed-input.js';
import { DatasetFromCallsSchema, DatasetRowEditSchema } from './dataset.schemas.js';

/** The GraphQL inputs of the dataset mutations, generated from their wire schemas (the service validates with them). */
export const DatasetFromCallsInput = typedInput(DatasetFromCallsSchema);
export const DatasetRowEditInput = typedInput(DatasetRowEditSchema);

/** The whole wire body is the `input` argument. */
export const AT_INPUT = { arg: 'input', wire: ['body'] };
