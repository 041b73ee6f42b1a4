import { Arg, Ctx, Mutation, Resolver, Root, Subscription } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { InferenceServices } from '../services.js';
import type { ChatCompletion } from './chat-completion.js';

const PROJECT_DESCRIPTION = 'Usage attribution, "<team>/<project>" (default: your default entity, project "inference")';

@Resolver()
export class ChatResolver {
  constructor(private readonly services: InferenceServices) {}

  @Mutation(() => JSONObjectScalar, {
    description: 'OpenAI chat completion: `request` is the OpenAI request body, the result the OpenAI response body',
  })
  createChatCompletion(
    @Arg('request', () => JSONObjectScalar) request: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) project: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ChatCompletion> {
    const principal = requirePrincipal(context);
    return this.services.chat.complete(request, { principal, project, requestId: context.requestId, signal: context.signal });
  }

  /**
   * The streaming form: one `chat.completion.chunk` per event. The gateway cannot run subscriptions: the REST
   * route `POST /inference/v1/chat/completions` with `stream: true` executes it against this subgraph.
   */
  @Subscription(() => JSONObjectScalar, {
    description: 'OpenAI chat completion chunks, as they are produced (served as server-sent events by the REST route)',
    // The event source needs the subgraph's services: it is bound in index.ts (`subscriptions`).
    subscribe: () => {
      throw new Error('chatCompletionChunks is bound by the inference subgraph');
    },
  })
  chatCompletionChunks(
    @Root() chunk: Record<string, unknown>,
    @Arg('request', () => JSONObjectScalar) _request: Record<string, unknown>,
    @Arg('project', () => String, { nullable: true, description: PROJECT_DESCRIPTION }) _project: string | null,
  ): Record<string, unknown> {
    return chunk;
  }
}
