import type { Principal } from '../../platform/auth/principal.js';
import { isTeamMember } from '../../platform/auth/principal.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationFailedError } from '../../platform/errors.js';
import { validateOrThrow } from '../../platform/validation.js';
import { decodeCursor, encodeCursor, pageSize, toConnection, type Connection } from '../../platform/graphql/connection.js';
import {
  CheckpointDeleteBody,
  ModelCreateBody,
  RlJobCreateBody,
  SftJobCreateBody,
  TrajectoryLogBody,
} from './training.schemas.js';
import type { GraphCaller } from '../../platform/graphql/platform-graph.js';
import { TRAINING_RUN_KILLED_EVENT } from '../../platform/events/contracts.js';
import { enqueueTrainingJob } from './job/job-queue.js';
import { publishTrainingEvent } from './job/training-run-events.js';
import { announceDeletedCheckpoints } from './promotion/deleted-checkpoints.js';
import type { SftDatasetResolver } from './sft/dataset-resolver.js';
import type { JobStatus } from './db/database.js';
import { decodePosition, encodePosition } from './newest-first.js';
import type { CheckpointRow, JobEventRow, JobRow, ModelRow, TrainingStore } from './store.js';
import { isUuid } from './uuid.js';

export const CANCELLED_MESSAGE = 'Training job was cancelled';

/** Page sizes of the training connections (the REST routes' limits are the same). */
export const PAGES = {
  checkpoints: { default: 20, max: 100 },
  jobs: { default: 20, max: 100 },
  events: { default: 100, max: 1000 },
  trajectoryLogs: { default: 20, max: 100 },
  models: { default: 20, max: 100 },
} as const;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
}

/**
 * Checkpoint and event cursors hold the id of the row they follow (the REST API's `after` is that id, and the route
 * encodes it as a cursor); the service finds the row's position in the list.
 */
const isRowId = (value: unknown): value is string => typeof value === 'string' && isUuid(value);
const afterId = (after: string | null | undefined): string | null => decodeCursor(after, isRowId);
const notInList = (msg: string) => new ValidationFailedError([{ loc: ['after'], msg, type: 'value_error' }], msg);

/**
 * Domain logic of Family C: models, checkpoints, trajectory logs and training jobs. Every write runs in one
 * transaction; a rejected request changes nothing. Access follows the model's entity: team members only.
 */
export class TrainingService {
  constructor(
    private readonly store: TrainingStore,
    private readonly datasets: SftDatasetResolver,
    /** The base models this platform's trainer can train (TrainingConfig.trainableBaseModels). */
    private readonly trainableBaseModels: readonly string[],
  ) {}

  /**
   * Creates a model; with `return_existing` an existing model of that name is returned instead of a 409. A new model
   * must be on a base model that can be trained here (400 naming them): accepted, it would only fail later — its
   * inference answering 404 and its jobs `training_failed`.
   */
  async createModel(principal: Principal, body: unknown): Promise<ModelRow> {
    const input = validateOrThrow(ModelCreateBody, body);
    const entity = input.entity ?? principal.defaultEntity;
    if (!isTeamMember(principal, entity)) throw new ForbiddenError(`You are not a member of entity "${entity}"`);
    return this.store.transaction(async (trx) => {
      const found = await this.store.modelByName(entity, input.project, input.name, trx);
      if (!found) this.assertTrainable(input.base_model);
      const created = found
        ? undefined
        : await this.store.insertModel(trx, { entity, project: input.project, name: input.name, base_model: input.base_model });
      if (created) return created;
      // It existed, or a concurrent request created it first.
      const existing = found ?? (await this.store.modelByName(entity, input.project, input.name, trx))!;
      if (!input.return_existing) {
        throw new ValidationFailedError([
          { loc: ['body', 'name'], msg: `Model "${entity}/${input.project}/${input.name}" already exists`, type: 'value_error' },
        ]);
      }
      if (existing.base_model !== input.base_model) {
        throw new ValidationFailedError([
          {
            loc: ['body', 'base_model'],
            msg: `Model "${input.name}" exists with base model "${existing.base_model}", not "${input.base_model}"`,
            type: 'value_error',
          },
        ]);
      }
      return existing;
    });
  }

  private assertTrainable(baseModel: string): void {
    if (this.trainableBaseModels.includes(baseModel)) return;
    throw new BadRequestError(
      `Base model "${baseModel}" cannot be trained here; the base models that can be trained are: ${this.trainableBaseModels.join(', ')}`,
      { param: 'base_model' },
    );
  }

  /** The model, when it exists and the caller may see it (404 otherwise, 403 for another team's model). */
  async model(principal: Principal, id: string): Promise<ModelRow> {
    const model = await this.store.model(id);
    if (!model) throw new NotFoundError(`Model ${id} not found`, { param: 'model_id' });
    if (!isTeamMember(principal, model.entity)) throw new ForbiddenError(`You are not a member of entity "${model.entity}"`);
    return model;
  }

  async deleteModel(principal: Principal, id: string): Promise<{ modelId: string; deletedCheckpoints: number; deletedRun: boolean }> {
    const model = await this.model(principal, id);
    return this.store.transaction(async (trx) => {
      await this.store.lockModel(trx, id);
      await announceDeletedCheckpoints(this.store, trx, principal, model, null);
      const deleted = await this.store.deleteModel(trx, id);
      if (!deleted) throw new NotFoundError(`Model ${id} not found`, { param: 'model_id' });
      return { modelId: id, deletedCheckpoints: deleted.deletedCheckpoints, deletedRun: true };
    });
  }

  /** A page of the model's checkpoints by step, in `order`; the cursor of a checkpoint is its id. */
  async checkpoints(modelId: string, args: PageArgs & { order?: 'asc' | 'desc' | null }): Promise<Connection<CheckpointRow>> {
    const size = pageSize(args.first, PAGES.checkpoints);
    const after = afterId(args.after);
    let afterStep: number | null = null;
    if (after !== null) {
      const cursor = await this.store.checkpoint(after);
      if (!cursor || cursor.model_id !== modelId) throw notInList(`No checkpoint ${after} in this model`);
      afterStep = cursor.step;
    }
    // One extra row says whether there is a next page.
    const rows = await this.store.checkpoints(modelId, { afterStep, limit: size + 1, order: args.order ?? 'asc' });
    return toConnection(rows, size, { cursorOf: (row) => encodeCursor(row.id), toNode: (row) => row, after: args.after });
  }

  /** Deletes the listed steps in one transaction; steps that do not exist are reported, the others deleted. */
  async deleteCheckpoints(principal: Principal, model: ModelRow, body: unknown): Promise<{ deletedCount: number; notFoundSteps: number[] }> {
    const { steps } = validateOrThrow(CheckpointDeleteBody, body);
    const wanted = [...new Set(steps)];
    const deleted = await this.store.transaction(async (trx) => {
      // Under the model's lock, as promotion: the steps announced are exactly those this delete removes.
      await this.store.lockModel(trx, model.id);
      await announceDeletedCheckpoints(this.store, trx, principal, model, wanted);
      return this.store.deleteCheckpoints(trx, model.id, wanted);
    });
    const found = new Set(deleted);
    return { deletedCount: deleted.length, notFoundSteps: wanted.filter((step) => !found.has(step)) };
  }

  async logTrajectories(modelId: string, body: unknown): Promise<void> {
    const input = validateOrThrow(TrajectoryLogBody, body);
    if (input.model_id !== undefined && input.model_id !== modelId) {
      throw new ValidationFailedError([{ loc: ['body', 'model_id'], msg: 'model_id differs from the model in the path', type: 'value_error' }]);
    }
    await this.store.transaction((trx) =>
      this.store.insertTrajectoryLog(trx, { model_id: modelId, split: input.split, trajectory_groups: input.trajectory_groups }),
    );
  }

  async createRlJob(principal: Principal, body: unknown): Promise<JobRow> {
    const input = validateOrThrow(RlJobCreateBody, body);
    // Choices may come without logprobs (ART's docs loop does not ask for them): the trainer scores them under the
    // checkpoint the job starts from, the one the platform served the rollouts with (job/job-runner.ts).
    await this.model(principal, input.model_id);
    return this.store.transaction(async (trx) => {
      const job = await this.store.insertJob(trx, {
        model_id: input.model_id,
        kind: 'RL',
        created_by_id: principal.userId,
        created_by: principal.username,
        request: { trajectory_groups: input.trajectory_groups, experimental_config: input.experimental_config ?? null },
      });
      await enqueueTrainingJob(trx, job.id, 1);
      return job;
    });
  }

  /**
   * Resolves `training_data_url` as the caller (422 naming it when it does not name a dataset with train.jsonl that
   * the caller can read; nothing is created) and stores a copy of train.jsonl with the job, in one transaction.
   * The lines are checked when the job runs: bad lines fail the job with their line numbers.
   */
  async createSftJob(caller: GraphCaller, body: unknown): Promise<JobRow> {
    const { principal } = caller;
    const input = validateOrThrow(SftJobCreateBody, body);
    await this.model(principal, input.model_id);
    const dataset = await this.datasets.resolve(input.training_data_url, caller);
    return this.store.transaction(async (trx) => {
      const job = await this.store.insertJob(trx, {
        model_id: input.model_id,
        kind: 'SFT',
        created_by_id: principal.userId,
        created_by: principal.username,
        request: {
          training_data_url: input.training_data_url,
          config: input.config ?? null,
          experimental_config: input.experimental_config ?? null,
        },
      });
      await this.store.insertJobDataset(trx, {
        job_id: job.id,
        training_data_url: input.training_data_url,
        artifact_version_id: dataset.artifactVersionId,
        digest: dataset.digest,
        content: dataset.content,
      });
      await enqueueTrainingJob(trx, job.id, 1);
      return job;
    });
  }

  async job(principal: Principal, id: string): Promise<JobRow> {
    const job = await this.store.job(id);
    if (!job) throw new NotFoundError(`Training job ${id} not found`, { param: 'training_job_id' });
    await this.model(principal, job.model_id);
    return job;
  }

  /** A page of the model's jobs, newest first. */
  async jobs(principal: Principal, modelId: string, args: PageArgs): Promise<Connection<JobRow>> {
    const size = pageSize(args.first, PAGES.jobs);
    const after = decodePosition(args.after);
    await this.model(principal, modelId);
    return toConnection(await this.store.jobsOfModel(modelId, after, size + 1), size, { cursorOf: encodePosition, toNode: (row) => row, after: args.after });
  }

  /** A page of the jobs of a project's models, newest first (the caller's access to the project is checked by the resolver). */
  async projectJobs(project: { entity: string; name: string }, args: PageArgs & { status?: JobStatus | null }): Promise<Connection<JobRow>> {
    const size = pageSize(args.first, PAGES.jobs);
    const after = decodePosition(args.after);
    const rows = await this.store.jobsOfProject(project, { status: args.status ?? null, after, limit: size + 1 });
    return toConnection(rows, size, { cursorOf: encodePosition, toNode: (row) => row, after: args.after });
  }

  /** A page of a project's models, newest first. */
  async projectModels(project: { entity: string; name: string }, args: PageArgs): Promise<Connection<ModelRow>> {
    const size = pageSize(args.first, PAGES.models);
    const after = decodePosition(args.after);
    const rows = await this.store.modelsOfProject(project.entity, project.name, after, size + 1);
    return toConnection(rows, size, { cursorOf: encodePosition, toNode: (row) => row, after: args.after });
  }

  /** A page of the model's trajectory logs, newest first, optionally of one split. */
  async trajectoryLogs(modelId: string, args: PageArgs & { split?: string | null }) {
    const size = pageSize(args.first, PAGES.trajectoryLogs);
    const after = decodePosition(args.after);
    const rows = await this.store.trajectoryLogs(modelId, args.split ?? null, after, size + 1);
    return toConnection(rows, size, { cursorOf: encodePosition, toNode: (row) => row, after: args.after });
  }

  /** A page of the job's events in order; the cursor of an event is its id. */
  async jobEvents(jobId: string, args: PageArgs): Promise<Connection<JobEventRow>> {
    const size = pageSize(args.first, PAGES.events);
    const after = afterId(args.after);
    let afterSeq: number | null = null;
    if (after !== null) {
      const seq = await this.store.jobEventSeq(jobId, after);
      if (seq === undefined) throw notInList(`No event ${after} in this job`);
      afterSeq = seq;
    }
    const rows = await this.store.jobEvents(jobId, afterSeq, size + 1);
    return toConnection(rows, size, { cursorOf: (row) => encodeCursor(row.id), toNode: (row) => row, after: args.after });
  }

  /**
   * Cancels a job that has not finished. A queued job never starts; a running one is stopped by its worker,
   * which watches the status (its heartbeat reads it). Finished jobs are returned unchanged (cancelling is idempotent).
   */
  async cancelJob(principal: Principal, id: string): Promise<JobRow> {
    await this.job(principal, id);
    return this.store.transaction(async (trx) => {
      const job = (await this.store.jobForUpdate(trx, id))!;
      if (job.status !== 'QUEUED' && job.status !== 'RUNNING') return job;
      const now = new Date();
      await this.store.updateJob(trx, id, { status: 'CANCELLED', training_end: now, error_message: null, heartbeat_at: null });
      // A running job had moved the model's registry run to RUNNING: it ends KILLED (a queued one never started it).
      if (job.status === 'RUNNING') {
        const model = (await this.store.model(job.model_id, trx))!;
        await publishTrainingEvent(trx, TRAINING_RUN_KILLED_EVENT, job, model);
      }
      // ART's poll loop ends only on training_ended or training_failed; a cancelled job must end it too.
      await this.store.insertJobEvent(trx, id, 'training_failed', { error_message: CANCELLED_MESSAGE });
      return { ...job, status: 'CANCELLED', training_end: now };
    });
  }
}
