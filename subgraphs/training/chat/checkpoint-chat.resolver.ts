import { Arg, Ctx, Mutation, Resolver, Root, Subscription } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TrainingServices } from '../services.js';

@Resolver()
export class CheckpointChatResolver {
  constructor(private readonly services: TrainingServices) {}

  @Mutation(() => JSONObjectScalar, {
    description:
      'OpenAI chat completion against a base model or a checkpoint (wandb-artifact:///entity/project/name:step<N>|latest); logprobs when asked',
  })
  createTrainingChatCompletion(
    @Arg('request', () => JSONObjectScalar) request: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<Record<string, unknown>> {
    return this.services.chat.complete({ principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal }, request);
  }

  /**
   * The streaming form (`stream: true`): one `chat.completion.chunk` per event. The gateway cannot run
   * subscriptions: the REST route `POST /training/v1/chat/completions` with `stream: true` executes it against this
   * subgraph and writes server-sent events.
   */
  @Subscription(() => JSONObjectScalar, {
    description: 'OpenAI chat completion chunks from a base model or a checkpoint, as they are generated (server-sent events over REST)',
    // The event source needs the subgraph's services: it is bound in index.ts (`subscriptions`).
    subscribe: () => {
      throw new Error('trainingChatCompletionChunks is bound by the training subgraph');
    },
  })
  trainingChatCompletionChunks(
    @Root() chunk: Record<string, unknown>,
    @Arg('request', () => JSONObjectScalar) _request: Record<string, unknown>,
  ): Record<string, unknown> {
    return chunk;
  }
}
