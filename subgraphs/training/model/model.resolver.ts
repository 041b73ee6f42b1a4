import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import { pagingDescriptions, type Connection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { TrainingJobConnection, toTrainingJob, type TrainingJob } from '../job/job.type.js';
import { mapConnection } from '../map-connection.js';
import type { TrainingServices } from '../services.js';
import { PAGES } from '../training-service.js';
import { AT_BODY, TrainingCheckpointDeleteInput, TrainingCheckpointPromoteInput, TrainingModelCreateInput, TrajectoryLogInput } from '../training.inputs.js';
import {
  TrainingCheckpointConnection,
  TrainingCheckpointDeletion,
  TrainingCheckpointOrder,
  TrainingModel,
  TrainingModelDeletion,
  TrajectoryLog,
  TrajectoryLogConnection,
  toTrainingCheckpoint,
  toTrainingModel,
  TrainingCheckpoint,
} from './model.type.js';

const CHECKPOINT_PAGES = pagingDescriptions(PAGES.checkpoints, 'checkpoint');
const JOB_PAGES = pagingDescriptions(PAGES.jobs, 'training job');
const LOG_PAGES = pagingDescriptions(PAGES.trajectoryLogs, 'trajectory log');

@Resolver(() => TrainingModel)
export class TrainingModelResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => TrainingModel, { description: 'A trainable model by id (NOT_FOUND when unknown)' })
  async trainingModel(@Arg('id', () => ID, { description: 'The model id' }) id: string, @Ctx() context: GraphQLContext): Promise<TrainingModel> {
    return toTrainingModel(await this.services.training.model(requirePrincipal(context), id));
  }

  @Mutation(() => TrainingModel, {
    description:
      "Creates a trainable model (entity null = the caller's default entity); with returnExisting, returns the model of that name when it exists. Also at POST /training/v1/preview/models",
  })
  async createTrainingModel(
    @Arg('input', () => TrainingModelCreateInput.argType(), { description: 'The model to create' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingModel> {
    const principal = requirePrincipal(context);
    return toTrainingModel(await TrainingModelCreateInput.handle(input, AT_BODY, (wire) => this.services.training.createModel(principal, wire)));
  }

  @Mutation(() => TrainingModelDeletion, { description: 'Deletes a model with its checkpoints, logs and jobs. Also at DELETE /training/v1/preview/models/{model_id}' })
  deleteTrainingModel(@Arg('id', () => ID, { description: 'The model to delete' }) id: string, @Ctx() context: GraphQLContext): Promise<TrainingModelDeletion> {
    return this.services.training.deleteModel(requirePrincipal(context), id);
  }

  @Mutation(() => TrainingCheckpointDeletion, {
    description: 'Deletes checkpoints of a model by step, in one transaction; steps that do not exist are reported. Also at DELETE /training/v1/preview/models/{model_id}/checkpoints',
  })
  async deleteTrainingCheckpoints(
    @Arg('modelId', () => ID, { description: 'The model whose checkpoints to delete' }) modelId: string,
    @Arg('input', () => TrainingCheckpointDeleteInput.argType(), { description: 'The steps to delete' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingCheckpointDeletion> {
    const principal = requirePrincipal(context);
    const model = await this.services.training.model(principal, modelId);
    return TrainingCheckpointDeleteInput.handle(input, AT_BODY, (wire) => this.services.training.deleteCheckpoints(principal, model, wire));
  }

  @Mutation(() => TrainingCheckpoint, {
    description:
      'Promotes a checkpoint: points a named alias (e.g. production) of the model at the checkpoint of a step, moving it from wherever it was, in one transaction. Training chat then serves wandb-artifact:///{entity}/{project}/{model}:{alias}, inference serves {entity}/{project}/{model}:{alias} once the registry has moved the alias (moments later), and the registry announces ADD_ARTIFACT_ALIAS for automations. Team members of the model only',
  })
  async promoteTrainingCheckpoint(
    @Arg('modelId', () => ID, { description: 'The model whose checkpoint to promote' }) modelId: string,
    @Arg('input', () => TrainingCheckpointPromoteInput.argType(), { description: 'The step and the alias' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingCheckpoint> {
    const principal = requirePrincipal(context);
    const checkpoint = await TrainingCheckpointPromoteInput.handle(input, AT_BODY, (wire) => this.services.promotion.promote(principal, modelId, wire));
    const [latestStep, named] = await Promise.all([this.services.store.latestStep(modelId), this.services.store.namedAliases(modelId)]);
    return toTrainingCheckpoint(checkpoint, latestStep, named.get(checkpoint.id) ?? []);
  }

  @Mutation(() => Boolean, { description: 'Stores trajectory groups of a model for a split. Also at POST /training/v1/preview/models/{model_id}/log' })
  async logTrajectories(
    @Arg('modelId', () => ID, { description: 'The model the trajectories were sampled from' }) modelId: string,
    @Arg('input', () => TrajectoryLogInput.argType(), { description: 'The split and its trajectory groups' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    await this.services.training.model(requirePrincipal(context), modelId);
    await TrajectoryLogInput.handle(input, AT_BODY, (wire) => this.services.training.logTrajectories(modelId, wire));
    return true;
  }

  @FieldResolver(() => TrainingCheckpointConnection, {
    description: "The model's checkpoints by step (lowest first unless order is DESC). Also at GET /training/v1/preview/models/{model_id}/checkpoints",
  })
  async checkpoints(
    @Root() model: TrainingModel,
    @Arg('first', () => Int, { nullable: true, description: CHECKPOINT_PAGES.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: CHECKPOINT_PAGES.after }) after: string | null,
    @Arg('order', () => TrainingCheckpointOrder, { nullable: true, description: 'Lowest step first (ASC, the default) or highest first (DESC)' })
    order: TrainingCheckpointOrder | null,
  ): Promise<Connection<TrainingCheckpoint>> {
    const [page, latestStep, named] = await Promise.all([
      this.services.training.checkpoints(model.id, { first, after, order }),
      this.services.store.latestStep(model.id),
      this.services.store.namedAliases(model.id),
    ]);
    return mapConnection(page, (row) => toTrainingCheckpoint(row, latestStep, named.get(row.id) ?? []));
  }

  @FieldResolver(() => TrajectoryLogConnection, { description: 'Logged trajectory groups, newest first, optionally of one split' })
  async trajectoryLogs(
    @Root() model: TrainingModel,
    @Arg('split', () => String, { nullable: true, description: 'Only the groups logged for this split (train, val)' }) split: string | null,
    @Arg('first', () => Int, { nullable: true, description: LOG_PAGES.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: LOG_PAGES.after }) after: string | null,
  ): Promise<Connection<TrajectoryLog>> {
    const page = await this.services.training.trajectoryLogs(model.id, { split, first, after });
    return mapConnection(page, (row) =>
      Object.assign(new TrajectoryLog(), { id: row.id, split: row.split, trajectoryGroups: row.trajectory_groups, createdAt: row.created_at }),
    );
  }

  @FieldResolver(() => TrainingJobConnection, {
    description: "The model's training jobs, newest first. Also at GET /training/v1/preview/models/{model_id}/training-jobs",
  })
  async jobs(
    @Root() model: TrainingModel,
    @Arg('first', () => Int, { nullable: true, description: JOB_PAGES.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: JOB_PAGES.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<TrainingJob>> {
    return mapConnection(await this.services.training.jobs(requirePrincipal(context), model.id, { first, after }), toTrainingJob);
  }
}
