import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import { pagingDescriptions, type Connection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import { mapConnection } from '../map-connection.js';
import { TrainingModel, toTrainingModel } from '../model/model.type.js';
import type { TrainingServices } from '../services.js';
import { PAGES } from '../training-service.js';
import { AT_BODY, RlTrainingJobCreateInput, SftTrainingJobCreateInput } from '../training.inputs.js';
import { TrainingJob, TrainingJobEventConnection, toTrainingJob, toTrainingJobEvent, type TrainingJobEvent } from './job.type.js';
import { TrainingStepMetrics, toStepMetrics } from './step-metrics.type.js';

const EVENT_PAGES = pagingDescriptions(PAGES.events, 'job event');

@Resolver(() => TrainingJob)
export class TrainingJobResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => TrainingJob, { description: 'A training job by id (NOT_FOUND when unknown). Also at GET /training/v1/preview/training-jobs/{training_job_id}' })
  async trainingJob(@Arg('id', () => ID, { description: 'The job id' }) id: string, @Ctx() context: GraphQLContext): Promise<TrainingJob> {
    return toTrainingJob(await this.services.training.job(requirePrincipal(context), id));
  }

  @Mutation(() => TrainingJob, {
    description: 'Queues a reinforcement-learning job on scored trajectory groups. Also at POST /training/v1/preview/training-jobs',
  })
  async createRlTrainingJob(
    @Arg('input', () => RlTrainingJobCreateInput.argType(), { description: 'The model, the trajectory groups and the trainer settings' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingJob> {
    const principal = requirePrincipal(context);
    return toTrainingJob(await RlTrainingJobCreateInput.handle(input, AT_BODY, (wire) => this.services.training.createRlJob(principal, wire)));
  }

  @Mutation(() => TrainingJob, {
    description: 'Queues a supervised fine-tuning job on a dataset artifact. Also at POST /training/v1/preview/sft-training-jobs',
  })
  async createSftTrainingJob(
    @Arg('input', () => SftTrainingJobCreateInput.argType(), { description: 'The model, the dataset and the settings' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingJob> {
    const caller = { principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal };
    return toTrainingJob(await SftTrainingJobCreateInput.handle(input, AT_BODY, (wire) => this.services.training.createSftJob(caller, wire)));
  }

  @Mutation(() => TrainingJob, {
    description: 'Cancels a queued or running job; a finished job is returned unchanged. Also at POST /training/v1/preview/training-jobs/{training_job_id}/cancel',
  })
  async cancelTrainingJob(@Arg('id', () => ID, { description: 'The job to cancel' }) id: string, @Ctx() context: GraphQLContext): Promise<TrainingJob> {
    return toTrainingJob(await this.services.training.cancelJob(requirePrincipal(context), id));
  }

  @FieldResolver(() => TrainingJobEventConnection, {
    description: "The job's progress events in order. Also at GET /training/v1/preview/training-jobs/{training_job_id}/events",
  })
  async events(
    @Root() job: TrainingJob,
    @Arg('first', () => Int, { nullable: true, description: EVENT_PAGES.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: EVENT_PAGES.after }) after: string | null,
  ): Promise<Connection<TrainingJobEvent>> {
    return mapConnection(await this.services.training.jobEvents(job.id, { first, after }), toTrainingJobEvent);
  }

  @FieldResolver(() => [TrainingStepMetrics], {
    description: "The metrics of every optimizer step of the job, in order (loss, reward, gradient norm, learning rate curves)",
  })
  async metrics(@Root() job: TrainingJob): Promise<TrainingStepMetrics[]> {
    const steps = await this.services.store.stepMetrics(job.id);
    return steps.map((row, index) => toStepMetrics(row.data, row.created_at, index + 1));
  }

  @FieldResolver(() => TrainingModel, { nullable: true, description: 'The model the job trains (null once the model is deleted)' })
  async model(@Root() job: TrainingJob): Promise<TrainingModel | null> {
    const row = await this.services.store.model(job.modelId);
    return row ? toTrainingModel(row) : null;
  }

  @FieldResolver(() => JSONScalar, { description: 'The settings the job was submitted with: {config, experimental_config} as sent (free-form trainer settings)' })
  config(@Root() job: TrainingJob): unknown {
    return { config: job.request.config ?? null, experimental_config: job.request.experimental_config ?? null };
  }
}
