import { typedInput } from '../../../platform/graphql/typed-input.js';
import { ModelDefinitionSchema } from './model-definition.schema.js';

/** The GraphQL input of registerInferenceModel, generated from the models file's schema (one contract). */
export const InferenceModelDefinitionInput = typedInput(ModelDefinitionSchema);

/** The catalog validates a definition at `["definition", …]`: the GraphQL argument has the same name. */
export const DEFINITION_AT = { arg: 'definition', wire: ['definition'] };
