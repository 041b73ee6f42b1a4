import { typedInput } from '../../../platform/graphql/typed-input.js';
import { ChatCompletionRequestSchema } from '../../inference/chat/chat-request.schema.js';

/**
 * The OpenAI chat-completions request of the training graph: the same request schema the REST route declares and
 * the service validates (inference's), so the GraphQL input is the graph's one `ChatCompletionRequestInput` —
 * one OpenAI request type whichever family answers it. Backend-specific parameters travel in `extra`.
 */
export const TrainingChatCompletionInput = typedInput(ChatCompletionRequestSchema);

/** The `request` argument is the whole REST body. */
export const AT_REQUEST = { arg: 'request', wire: ['body'] };
