import { Arg, Ctx, Mutation, Resolver, Root, Subscription } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { InferenceServices } from '../services.js';
import type { ChatCompletion } from './chat-completion.js';
import { ChatCompletionChunkObject, ChatCompletionObject, toChatCompletionObject } from './chat-completion.type.js';
import { CHAT_REQUEST_AT, ChatCompletionRequestInput } from './chat.inputs.js';

const PROJECT_DESCRIPTION = 'Usage attribution, "<team>/<project>" (default: your default entity, project "inference")';
const REQUEST_DESCRIPTION = 'The conversation, the model to ask and its sampling parameters';
const WIRE_BODY_DESCRIPTION =
  'The OpenAI request body exactly as an OpenAI client sends it (snake_case, any parameter); checked by the same rules as `request` of createChatCompletion';

/**
 * Chat completions, in two forms over one service:
 * - typed (`createChatCompletion`, `chatCompletionChunks`): what GraphQL clients use; the input is generated from the
 *   REST request schema, the results are typed objects;
 * - the OpenAI wire protocol (`openaiChatCompletion`, `openaiChatCompletionChunks`): what the REST route
 *   POST /inference/v1/chat/completions runs — the body and the answer verbatim. The route is the platform's hot
 *   path and its clients are OpenAI SDKs: a malformed body must still reach the service (to be answered in OpenAI's
 *   shape, naming the parameter, and recorded as usage) and the answer must keep every field an upstream sends.
 *   Mapping bodies onto the typed input would refuse malformed ones in GraphQL coercion and add work per request.
 */
@Resolver()
export class ChatResolver {
  constructor(private readonly services: InferenceServices) {}

  @Mutation(() => ChatCompletionObject, { description: 'Ask a catalog model to continue a conversation (a chat completion)' })
  async createChatCompletion(
    @Arg('request', () => ChatCompletionRequestInput.argType(), { description: REQUEST_DESCRIPTION }) request: unknown,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) project: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ChatCompletionObject> {
    const principal = requirePrincipal(context);
    const completion = await ChatCompletionRequestInput.handle(request, CHAT_REQUEST_AT, (wire) =>
      this.services.chat.complete(wire, { principal, project, requestId: context.requestId, signal: context.signal }),
    );
    return toChatCompletionObject(completion);
  }

  @Mutation(() => JSONObjectScalar, {
    description:
      'The OpenAI wire protocol of chat completions: the OpenAI request body in, the OpenAI response body out, verbatim ' +
      '(what POST /inference/v1/chat/completions runs). GraphQL clients use createChatCompletion.',
  })
  openaiChatCompletion(
    @Arg('body', () => JSONObjectScalar, { description: WIRE_BODY_DESCRIPTION }) body: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) project: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ChatCompletion> {
    const principal = requirePrincipal(context);
    return this.services.chat.complete(body, { principal, project, requestId: context.requestId, signal: context.signal });
  }

  /**
   * The streaming form: one chunk per event. The gateway cannot run subscriptions: they run on the subgraph's schema
   * (in process, or over the subgraph service's internal graphql-ws); the public endpoint /graphql/ws routes them
   * here (server/http/graphql-ws-endpoint.ts). The event sources need the subgraph's services: they are bound in
   * index.ts (`subscriptions`).
   */
  @Subscription(() => ChatCompletionChunkObject, {
    description:
      'A streamed chat completion: its chunks as the model produces them (graphql-ws at /graphql/ws)',
    subscribe: () => {
      throw new Error('chatCompletionChunks is bound by the inference subgraph');
    },
  })
  chatCompletionChunks(
    // The bound event source yields typed chunks already (index.ts), and bound fields resolve to the event itself.
    @Root() chunk: ChatCompletionChunkObject,
    @Arg('request', () => ChatCompletionRequestInput.argType(), { description: REQUEST_DESCRIPTION }) _request: unknown,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) _project: string | null,
  ): ChatCompletionChunkObject {
    return chunk;
  }

  @Subscription(() => JSONObjectScalar, {
    description:
      'The OpenAI wire protocol of streamed chat completions: `chat.completion.chunk` bodies verbatim (what the REST route ' +
      'serves as server-sent events with `stream: true`). GraphQL clients use chatCompletionChunks.',
    subscribe: () => {
      throw new Error('openaiChatCompletionChunks is bound by the inference subgraph');
    },
  })
  openaiChatCompletionChunks(
    @Root() chunk: Record<string, unknown>,
    @Arg('body', () => JSONObjectScalar, { description: WIRE_BODY_DESCRIPTION }) _body: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) _project: string | null,
  ): Record<string, unknown> {
    return chunk;
  }
}
