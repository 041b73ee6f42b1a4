import { typedInput } from '../../../platform/graphql/typed-input.js';
import { EmbeddingsRequestSchema } from './embeddings-request.schema.js';

/** The GraphQL input of embeddings, generated from the REST request schema (one contract). */
export const EmbeddingsRequestInput = typedInput(EmbeddingsRequestSchema);

/** Where the typed request sits: the GraphQL argument `request`, the REST body (where the service locates issues). */
export const EMBEDDINGS_REQUEST_AT = { arg: 'request', wire: ['body'] };
