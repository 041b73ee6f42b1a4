import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import { TrainingJob, toTrainingJob } from '../job/job.type.js';
import type { TrainingServices } from '../services.js';
import {
  TrainingCheckpointDeletion,
  TrainingCheckpointPage,
  TrainingModel,
  TrainingModelDeletion,
  TrajectoryLog,
  toTrainingCheckpoint,
  toTrainingModel,
} from './model.type.js';

@Resolver(() => TrainingModel)
export class TrainingModelResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => TrainingModel, { description: 'A model by id (404 when unknown)' })
  async trainingModel(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<TrainingModel> {
    return toTrainingModel(await this.services.training.model(requirePrincipal(context), id));
  }

  @Mutation(() => TrainingModel, {
    description: 'Creates a model (ModelCreateBody JSON; entity null = the caller\'s default entity). With return_existing, returns the existing model of that name.',
  })
  async createTrainingModel(
    @Arg('input', () => JSONObjectScalar) input: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingModel> {
    return toTrainingModel(await this.services.training.createModel(requirePrincipal(context), input));
  }

  @Mutation(() => TrainingModelDeletion, { description: 'Deletes a model with its checkpoints, logs and jobs' })
  deleteTrainingModel(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<TrainingModelDeletion> {
    return this.services.training.deleteModel(requirePrincipal(context), id);
  }

  @Mutation(() => TrainingCheckpointDeletion, { description: 'Deletes checkpoints by step ({steps:[int]}) in one transaction' })
  async deleteTrainingCheckpoints(
    @Arg('modelId', () => ID) modelId: string,
    @Arg('input', () => JSONObjectScalar) input: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingCheckpointDeletion> {
    await this.services.training.model(requirePrincipal(context), modelId);
    return this.services.training.deleteCheckpoints(modelId, input);
  }

  @Mutation(() => Boolean, { description: 'Stores trajectory groups for a split ({split, trajectory_groups})' })
  async logTrajectories(
    @Arg('modelId', () => ID) modelId: string,
    @Arg('input', () => JSONObjectScalar) input: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    await this.services.training.model(requirePrincipal(context), modelId);
    await this.services.training.logTrajectories(modelId, input);
    return true;
  }

  @FieldResolver(() => TrainingCheckpointPage, { description: 'Checkpoints by step; `after` is the id of the last one seen' })
  async checkpoints(
    @Root() model: TrainingModel,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('limit', () => Int, { nullable: true }) limit: number | null,
    @Arg('order', () => String, { nullable: true }) order: string | null,
  ): Promise<TrainingCheckpointPage> {
    const page = await this.services.training.checkpoints(model.id, {
      ...(after != null ? { after } : {}),
      ...(limit != null ? { limit } : {}),
      ...(order != null ? { order } : {}),
    });
    return Object.assign(new TrainingCheckpointPage(), { ...page, data: page.data.map(toTrainingCheckpoint) });
  }

  @FieldResolver(() => [TrajectoryLog], { description: 'Logged trajectory groups, newest first, optionally of one split' })
  async trajectoryLogs(
    @Root() model: TrainingModel,
    @Arg('split', () => String, { nullable: true }) split: string | null,
    @Arg('limit', () => Int, { defaultValue: 20 }) limit: number,
  ): Promise<TrajectoryLog[]> {
    const rows = await this.services.store.trajectoryLogs(model.id, split ?? null, Math.min(Math.max(limit, 1), 100));
    return rows.map((row) =>
      Object.assign(new TrajectoryLog(), { id: row.id, split: row.split, trajectoryGroups: row.trajectory_groups, createdAt: row.created_at }),
    );
  }

  @FieldResolver(() => [TrainingJob], { description: 'The model\'s training jobs, newest first' })
  async jobs(
    @Root() model: TrainingModel,
    @Arg('limit', () => Int, { defaultValue: 20 }) limit: number,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingJob[]> {
    return (await this.services.training.jobs(requirePrincipal(context), model.id, limit)).map(toTrainingJob);
  }
}
