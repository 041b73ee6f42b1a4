import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar, JSONScalar } from '../../../platform/graphql/scalars.js';
import type { TrainingServices } from '../services.js';
import { TrainingJob, TrainingJobEventPage, toTrainingJob, toTrainingJobEvent } from './job.type.js';

@Resolver(() => TrainingJob)
export class TrainingJobResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => TrainingJob, { description: 'A training job by id (404 when unknown)' })
  async trainingJob(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<TrainingJob> {
    return toTrainingJob(await this.services.training.job(requirePrincipal(context), id));
  }

  @Mutation(() => TrainingJob, { description: 'Queues a reinforcement-learning job (RL job body JSON: model_id, trajectory_groups, experimental_config)' })
  async createRlTrainingJob(
    @Arg('input', () => JSONObjectScalar) input: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingJob> {
    return toTrainingJob(await this.services.training.createRlJob(requirePrincipal(context), input));
  }

  @Mutation(() => TrainingJob, { description: 'Queues a supervised fine-tuning job (model_id, training_data_url, config)' })
  async createSftTrainingJob(
    @Arg('input', () => JSONObjectScalar) input: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingJob> {
    const caller = { principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal };
    return toTrainingJob(await this.services.training.createSftJob(caller, input));
  }

  @Mutation(() => TrainingJob, { description: 'Cancels a queued or running job; a finished job is returned unchanged' })
  async cancelTrainingJob(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<TrainingJob> {
    return toTrainingJob(await this.services.training.cancelJob(requirePrincipal(context), id));
  }

  @FieldResolver(() => TrainingJobEventPage, { description: 'Events in order; `after` is the id of the last one seen' })
  async events(
    @Root() job: TrainingJob,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('limit', () => Int, { nullable: true }) limit: number | null,
  ): Promise<TrainingJobEventPage> {
    const page = await this.services.training.jobEvents(job.id, {
      ...(after != null ? { after } : {}),
      ...(limit != null ? { limit } : {}),
    });
    return Object.assign(new TrainingJobEventPage(), { ...page, data: page.data.map(toTrainingJobEvent) });
  }

  @FieldResolver(() => JSONScalar, { description: 'The experimental_config (and SFT config) the job was submitted with' })
  config(@Root() job: TrainingJob): unknown {
    return { config: job.request.config ?? null, experimental_config: job.request.experimental_config ?? null };
  }
}
