import { typedInput } from '../../../platform/graphql/typed-input.js';
import { ChatCompletionRequestSchema } from './chat-request.schema.js';

/** The GraphQL input of chat completions, generated from the REST request schema (one contract). */
export const ChatCompletionRequestInput = typedInput(ChatCompletionRequestSchema);

/** Where the typed request sits: the GraphQL argument `request`, the REST body (where the service locates issues). */
export const CHAT_REQUEST_AT = { arg: 'request', wire: ['body'] };
