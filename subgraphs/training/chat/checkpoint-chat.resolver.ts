import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
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
    return this.services.chat.complete(requirePrincipal(context), request, context.signal);
  }
}
