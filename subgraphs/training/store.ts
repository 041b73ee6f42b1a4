import { sql, type Kysely, type Transaction } from 'kysely';
import type { JobKind, JobStatus, TrainingDatabase } from './db/database.js';
import { olderThan, positionOf, type NewestFirstPosition } from './newest-first.js';
import { isUuid } from './uuid.js';

export { isUuid };

export type TrainingDb = Kysely<TrainingDatabase> | Transaction<TrainingDatabase>;

/** Whose jobs a caller may count: every team's (platform admins) or those of the teams named. */
export type JobVisibility = 'all' | readonly string[];

export interface ModelRow {
  id: string;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id: string;
  created_at: Date;
}
export interface CheckpointRow {
  id: string;
  step: number;
  metrics: Record<string, number>;
  created_at: Date;
}
export interface JobRow {
  id: string;
  model_id: string;
  kind: JobKind;
  created_by_id: string;
  created_by: string;
  status: JobStatus;
  request: Record<string, unknown>;
  error_message: string | null;
  attempts: number;
  training_start: Date | null;
  training_end: Date | null;
  created_at: Date;
}
export interface JobEventRow {
  seq: number;
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

const MODEL_COLUMNS = ['id', 'entity', 'project', 'name', 'base_model', 'run_id', 'created_at'] as const;
const JOB_COLUMNS = [
  'id', 'model_id', 'kind', 'created_by_id', 'created_by', 'status', 'request', 'error_message', 'attempts', 'training_start', 'training_end', 'created_at',
] as const;

/** Kysely queries of the training schema. */
export class TrainingStore {
  constructor(readonly db: Kysely<TrainingDatabase>) {}

  transaction<T>(work: (trx: Transaction<TrainingDatabase>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async countModels(entity: string, project: string): Promise<number> {
    const row = await this.db
      .selectFrom('models')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('entity', '=', entity)
      .where('project', '=', project)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countJobs(entity: string, project: string): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .innerJoin('models', 'models.id', 'jobs.model_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('models.entity', '=', entity)
      .where('models.project', '=', project)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A page of a project's models, newest first (one row more than the page, for hasNextPage). */
  async modelsOfProject(entity: string, project: string, after: NewestFirstPosition | null, limit: number): Promise<(ModelRow & { position: string })[]> {
    let query = this.db
      .selectFrom('models')
      .select(MODEL_COLUMNS)
      .select(positionOf('models').as('position'))
      .where('entity', '=', entity)
      .where('project', '=', project);
    if (after) query = query.where(olderThan('models', after));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async model(id: string, db: TrainingDb = this.db): Promise<ModelRow | undefined> {
    if (!isUuid(id)) return undefined;
    return db.selectFrom('models').select(MODEL_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async modelByName(entity: string, project: string, name: string, db: TrainingDb = this.db): Promise<ModelRow | undefined> {
    return db
      .selectFrom('models')
      .select(MODEL_COLUMNS)
      .where('entity', '=', entity)
      .where('project', '=', project)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  /** Inserts the model, or returns undefined when one of that name exists (the unique constraint decides). */
  async insertModel(
    trx: TrainingDb,
    model: { entity: string; project: string; name: string; base_model: string },
  ): Promise<ModelRow | undefined> {
    return trx
      .insertInto('models')
      .values(model)
      .onConflict((oc) => oc.constraint('models_project_name_unique').doNothing())
      .returning(MODEL_COLUMNS)
      .executeTakeFirst();
  }

  async lockModel(trx: TrainingDb, id: string): Promise<void> {
    await trx.selectFrom('models').select('id').where('id', '=', id).forUpdate().execute();
  }

  async deleteModel(trx: TrainingDb, id: string): Promise<{ deletedCheckpoints: number } | undefined> {
    const checkpoints = await trx
      .selectFrom('checkpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('model_id', '=', id)
      .executeTakeFirstOrThrow();
    // Checkpoints, logs, jobs and their events go with the model (ON DELETE CASCADE).
    const deleted = await trx.deleteFrom('models').where('id', '=', id).returning('id').executeTakeFirst();
    return deleted ? { deletedCheckpoints: Number(checkpoints.n) } : undefined;
  }

  async checkpoint(id: string): Promise<{ model_id: string; step: number } | undefined> {
    if (!isUuid(id)) return undefined;
    return this.db.selectFrom('checkpoints').select(['model_id', 'step']).where('id', '=', id).executeTakeFirst();
  }

  /** One page of a model's checkpoints by step, strictly after `afterStep` in the page's direction. */
  async checkpoints(modelId: string, options: { afterStep: number | null; limit: number; order: 'asc' | 'desc' }): Promise<CheckpointRow[]> {
    let query = this.db.selectFrom('checkpoints').select(['id', 'step', 'metrics', 'created_at']).where('model_id', '=', modelId);
    if (options.afterStep !== null) query = query.where('step', options.order === 'asc' ? '>' : '<', options.afterStep);
    return query.orderBy('step', options.order).limit(options.limit).execute();
  }

  /** Stores one finished step (the trainer calls this before it writes `training_ended`). */
  async insertCheckpoint(
    trx: TrainingDb,
    checkpoint: { model_id: string; step: number; metrics: Record<string, number>; adapter_config: string | null; adapter_weights: Buffer | null },
  ): Promise<CheckpointRow> {
    return trx
      .insertInto('checkpoints')
      .values({ ...checkpoint, metrics: JSON.stringify(checkpoint.metrics) })
      .returning(['id', 'step', 'metrics', 'created_at'])
      .executeTakeFirstOrThrow();
  }

  async deleteCheckpoints(trx: TrainingDb, modelId: string, steps: number[]): Promise<number[]> {
    if (steps.length === 0) return [];
    const rows = await trx
      .deleteFrom('checkpoints')
      .where('model_id', '=', modelId)
      .where('step', 'in', steps)
      .returning('step')
      .execute();
    return rows.map((row) => row.step);
  }

  async insertTrajectoryLog(trx: TrainingDb, log: { model_id: string; split: string; trajectory_groups: unknown[] }): Promise<void> {
    await trx
      .insertInto('trajectory_logs')
      .values({ ...log, trajectory_groups: JSON.stringify(log.trajectory_groups) })
      .execute();
  }

  async trajectoryLogs(modelId: string, split: string | null, after: NewestFirstPosition | null, limit: number) {
    let query = this.db
      .selectFrom('trajectory_logs')
      .select(['id', 'split', 'trajectory_groups', 'created_at'])
      .select(positionOf('trajectory_logs').as('position'))
      .where('model_id', '=', modelId);
    if (split !== null) query = query.where('split', '=', split);
    if (after) query = query.where(olderThan('trajectory_logs', after));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async insertJob(
    trx: TrainingDb,
    job: { model_id: string; kind: JobKind; created_by_id: string; created_by: string; request: Record<string, unknown> },
  ): Promise<JobRow> {
    return trx
      .insertInto('jobs')
      .values({ ...job, request: JSON.stringify(job.request) })
      .returning(JOB_COLUMNS)
      .executeTakeFirstOrThrow();
  }

  async insertJobDataset(
    trx: TrainingDb,
    dataset: { job_id: string; training_data_url: string; artifact_version_id: string; digest: string; content: Buffer },
  ): Promise<void> {
    await trx.insertInto('job_datasets').values(dataset).execute();
  }

  async jobDataset(jobId: string): Promise<{ training_data_url: string; digest: string; content: Buffer } | undefined> {
    return this.db.selectFrom('job_datasets').select(['training_data_url', 'digest', 'content']).where('job_id', '=', jobId).executeTakeFirst();
  }

  async job(id: string, db: TrainingDb = this.db): Promise<JobRow | undefined> {
    if (!isUuid(id)) return undefined;
    return db.selectFrom('jobs').select(JOB_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  /** Locks the job row for a state change (cancel vs. worker transitions are serialised on it). */
  async jobForUpdate(trx: TrainingDb, id: string): Promise<JobRow | undefined> {
    if (!isUuid(id)) return undefined;
    return trx.selectFrom('jobs').select(JOB_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** A page of a model's jobs, newest first. */
  async jobsOfModel(modelId: string, after: NewestFirstPosition | null, limit: number): Promise<(JobRow & { position: string })[]> {
    let query = this.db.selectFrom('jobs').select(JOB_COLUMNS).select(positionOf('jobs').as('position')).where('model_id', '=', modelId);
    if (after) query = query.where(olderThan('jobs', after));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** A page of the jobs of a project's models, newest first, optionally of one status. */
  async jobsOfProject(
    project: { entity: string; name: string },
    options: { status: JobStatus | null; after: NewestFirstPosition | null; limit: number },
  ): Promise<(JobRow & { position: string })[]> {
    let query = this.db
      .selectFrom('jobs')
      .innerJoin('models', 'models.id', 'jobs.model_id')
      .select(JOB_COLUMNS.map((column) => `jobs.${column}` as const))
      .select(positionOf('jobs').as('position'))
      .where('models.entity', '=', project.entity)
      .where('models.project', '=', project.name);
    if (options.status) query = query.where('jobs.status', '=', options.status);
    if (options.after) query = query.where(olderThan('jobs', options.after));
    return query.orderBy('jobs.created_at', 'desc').orderBy('jobs.id', 'desc').limit(options.limit).execute();
  }

  /** The metrics of every optimizer step of a job (its gradient_step events), in order. */
  async stepMetrics(jobId: string): Promise<{ data: Record<string, unknown>; created_at: Date }[]> {
    return this.db
      .selectFrom('job_events')
      .select(['data', 'created_at'])
      .where('job_id', '=', jobId)
      .where('type', '=', 'gradient_step')
      .orderBy('seq')
      .execute();
  }

  /** The model's highest checkpoint step (the one `latest` names), or null without checkpoints. */
  async latestStep(modelId: string): Promise<number | null> {
    const row = await this.db.selectFrom('checkpoints').select((eb) => eb.fn.max('step').as('step')).where('model_id', '=', modelId).executeTakeFirst();
    return row?.step ?? null;
  }

  async updateJob(
    trx: TrainingDb,
    id: string,
    changes: Partial<Pick<JobRow, 'status' | 'error_message' | 'training_start' | 'training_end' | 'attempts'> & { heartbeat_at: Date | null }>,
  ): Promise<void> {
    await trx.updateTable('jobs').set(changes).where('id', '=', id).execute();
  }

  async insertJobEvent(trx: TrainingDb, jobId: string, type: string, data: Record<string, unknown>): Promise<void> {
    await trx.insertInto('job_events').values({ job_id: jobId, type, data: JSON.stringify(data) }).execute();
  }

  async jobEventSeq(jobId: string, eventId: string): Promise<number | undefined> {
    if (!isUuid(eventId)) return undefined;
    const row = await this.db.selectFrom('job_events').select('seq').where('job_id', '=', jobId).where('id', '=', eventId).executeTakeFirst();
    return row?.seq;
  }

  async jobEvents(jobId: string, afterSeq: number | null, limit: number): Promise<JobEventRow[]> {
    let query = this.db.selectFrom('job_events').select(['seq', 'id', 'type', 'data', 'created_at']).where('job_id', '=', jobId);
    if (afterSeq !== null) query = query.where('seq', '>', afterSeq);
    return query.orderBy('seq').limit(limit).execute();
  }

  /** The model's highest step with its adapter bytes (what the next job continues from). */
  async latestCheckpoint(
    modelId: string,
    db: TrainingDb = this.db,
  ): Promise<{ id: string; step: number; adapter_config: string | null; adapter_weights: Buffer | null } | undefined> {
    return db
      .selectFrom('checkpoints')
      .select(['id', 'step', 'adapter_config', 'adapter_weights'])
      .where('model_id', '=', modelId)
      .orderBy('step', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * A checkpoint by step, by named alias (`{ alias }`) or the highest, for serving: whether it has its adapter files,
   * and the files themselves unless `weights` is false (a caller that only checks the checkpoint can be served does
   * not read the adapter's bytes).
   */
  async checkpointWithAdapter(
    modelId: string,
    step: number | 'latest' | { alias: string },
    { weights }: { weights: boolean } = { weights: true },
  ): Promise<{ id: string; step: number; has_adapter: boolean; adapter_config: string | null; adapter_weights: Buffer | null } | undefined> {
    // Both queries name the checkpoints table `c`.
    const columns = [
      sql<string>`c.id`.as('id'),
      sql<number>`c.step`.as('step'),
      sql<boolean>`c.adapter_config is not null and c.adapter_weights is not null`.as('has_adapter'),
      sql<string | null>`c.adapter_config`.as('adapter_config'),
      (weights ? sql<Buffer | null>`c.adapter_weights` : sql<Buffer | null>`null`).as('adapter_weights'),
    ];
    if (typeof step === 'object') {
      return this.db
        .selectFrom('checkpoint_aliases as a')
        .innerJoin('checkpoints as c', 'c.id', 'a.checkpoint_id')
        .select(columns)
        .where('a.model_id', '=', modelId)
        .where('a.alias', '=', step.alias)
        .executeTakeFirst();
    }
    const query = this.db.selectFrom('checkpoints as c').select(columns).where('c.model_id', '=', modelId);
    return (step === 'latest' ? query.orderBy('c.step', 'desc').limit(1) : query.where('c.step', '=', step)).executeTakeFirst();
  }

  /** The model's checkpoint at `step` (without its adapter), read in the caller's transaction. */
  async checkpointAtStep(trx: TrainingDb, modelId: string, step: number): Promise<CheckpointRow | undefined> {
    return trx
      .selectFrom('checkpoints')
      .select(['id', 'step', 'metrics', 'created_at'])
      .where('model_id', '=', modelId)
      .where('step', '=', step)
      .executeTakeFirst();
  }

  /** The checkpoint a named alias points at now (undefined: the alias is not set). */
  async aliasTarget(trx: TrainingDb, modelId: string, alias: string): Promise<string | undefined> {
    const row = await trx.selectFrom('checkpoint_aliases').select('checkpoint_id').where('model_id', '=', modelId).where('alias', '=', alias).executeTakeFirst();
    return row?.checkpoint_id;
  }

  /** Points the alias at the checkpoint, wherever it pointed before (one row per model and alias). */
  async setAlias(trx: TrainingDb, row: { model_id: string; alias: string; checkpoint_id: string; promoted_by: string }): Promise<void> {
    await trx
      .insertInto('checkpoint_aliases')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['model_id', 'alias']).doUpdateSet({ checkpoint_id: row.checkpoint_id, promoted_by: row.promoted_by, promoted_at: new Date() }),
      )
      .execute();
  }

  /** The steps of the model's checkpoints among `steps` (all of them: null), ascending. */
  async checkpointStepsAmong(trx: TrainingDb, modelId: string, steps: number[] | null): Promise<number[]> {
    if (steps !== null && steps.length === 0) return [];
    let query = trx.selectFrom('checkpoints').select('step').where('model_id', '=', modelId);
    if (steps !== null) query = query.where('step', 'in', steps);
    return (await query.orderBy('step').execute()).map((row) => row.step);
  }

  /** The model's named aliases by checkpoint id. */
  async namedAliases(modelId: string): Promise<Map<string, string[]>> {
    const rows = await this.db.selectFrom('checkpoint_aliases').select(['alias', 'checkpoint_id']).where('model_id', '=', modelId).orderBy('alias').execute();
    const byCheckpoint = new Map<string, string[]>();
    for (const row of rows) byCheckpoint.set(row.checkpoint_id, [...(byCheckpoint.get(row.checkpoint_id) ?? []), row.alias]);
    return byCheckpoint;
  }

  /** Records that the job's worker is alive; returns the job's status (a CANCELLED job stops its training). */
  async heartbeat(jobId: string): Promise<string | undefined> {
    const row = await this.db
      .updateTable('jobs')
      .set({ heartbeat_at: new Date() })
      .where('id', '=', jobId)
      .where('status', '=', 'RUNNING')
      .returning('status')
      .executeTakeFirst();
    if (row) return row.status;
    return (await this.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst())?.status;
  }

  /** RUNNING jobs whose worker stopped sending heartbeats, locked for the caller's transaction (skipping busy ones). */
  async staleJobsForUpdate(trx: TrainingDb, staleBefore: Date): Promise<JobRow[]> {
    return trx
      .selectFrom('jobs')
      .select(JOB_COLUMNS)
      .where('status', '=', 'RUNNING')
      .where('heartbeat_at', '<', staleBefore)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  async countStaleRunningJobs(staleBefore: Date): Promise<number> {
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'RUNNING')
      .where('heartbeat_at', '<', staleBefore)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  /** Jobs by status, of the models of `visible` teams only. */
  async countJobsByStatus(visible: JobVisibility): Promise<Record<string, number>> {
    let query = this.db
      .selectFrom('jobs')
      .innerJoin('models', 'models.id', 'jobs.model_id')
      .select(['jobs.status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('jobs.status');
    if (visible !== 'all') {
      if (visible.length === 0) return {};
      query = query.where('models.entity', 'in', visible);
    }
    const rows = await query.execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }
}
