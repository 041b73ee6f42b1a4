import { Arg, Ctx, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TrainingServices } from '../services.js';
import { AT_REQUEST, TrainingChatCompletionInput } from './chat-completion.input.js';
import { TrainingChatCompletion, toTrainingChatCompletion } from './chat-completion.type.js';
import { TrainingServedModel } from './served-model.type.js';

@Resolver()
export class CheckpointChatResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => TrainingServedModel, {
    description:
      'What createTrainingChatCompletion would answer `model` with, resolved as it resolves it from training\'s own checkpoints (current as soon as a job has SUCCEEDED): NOT_FOUND for a model, step or alias training does not have, FORBIDDEN outside the entity, BAD_USER_INPUT for an alias of no known form',
  })
  async trainingServedModel(
    @Arg('model', () => String, { description: 'A base model or a checkpoint (wandb-artifact:///{entity}/{project}/{model}:step<N>|latest|<promoted alias>)' }) model: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingServedModel> {
    const served = await this.services.chat.servedModel(requirePrincipal(context), model);
    return Object.assign(new TrainingServedModel(), { model, ...served });
  }

  @Mutation(() => TrainingChatCompletion, {
    description:
      'OpenAI chat completion against a base model or a checkpoint (wandb-artifact:///entity/project/name:step<N>|latest); logprobs when asked. Also at POST /training/v1/chat/completions',
  })
  async createTrainingChatCompletion(
    @Arg('request', () => TrainingChatCompletionInput.argType(), { description: 'The chat-completions request; `model` is a base model or a checkpoint (wandb-artifact:///{entity}/{project}/{model}:step<N> or :latest)' }) request: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingChatCompletion> {
    const caller = { principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal };
    return toTrainingChatCompletion(await TrainingChatCompletionInput.handle(request, AT_REQUEST, (wire) => this.services.chat.complete(caller, wire)));
  }

  /**
   * The streaming form (`stream: true`): one `chat.completion.chunk` per event. The gateway cannot run
   * subscriptions: the REST route `POST /training/v1/chat/completions` with `stream: true` executes it against this
   * subgraph and writes server-sent events.
   */
  @Subscription(() => JSONObjectScalar, {
    description:
      'OpenAI chat completion chunks (chat.completion.chunk objects, as OpenAI streams them) from a base model or a checkpoint, as they are generated. Also at POST /training/v1/chat/completions with stream: true (server-sent events)',
    // The event source needs the subgraph's services: it is bound in index.ts (`subscriptions`).
    subscribe: () => {
      throw new Error('trainingChatCompletionChunks is bound by the training subgraph');
    },
  })
  trainingChatCompletionChunks(
    @Root() chunk: Record<string, unknown>,
    @Arg('request', () => TrainingChatCompletionInput.argType(), { description: 'The chat-completions request (stream is implied)' }) _request: unknown,
  ): Record<string, unknown> {
    return chunk;
  }
}
