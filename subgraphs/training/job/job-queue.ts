import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import { Logger as GraphileLogger, runMigrations } from 'graphile-worker';
import type { Logger } from '../../../platform/logger.js';
import type { JobVisibility, TrainingDb } from '../store.js';

/** The graphile-worker task that trains one job; its payload names the job (the job row holds everything else). */
export const TRAINING_TASK = 'training_job';

/**
 * The Postgres-backed queue under training jobs: graphile-worker (its own `graphile_worker` schema, LISTEN/NOTIFY
 * pick-up, SKIP LOCKED). A job is enqueued in the same transaction that creates its row, so a job exists in the
 * queue exactly when it exists in the API.
 */
export async function migrateJobQueue(pool: pg.Pool, logger: Logger): Promise<void> {
  // graphile-worker checks that a client losing its server cannot crash the process: the platform's pool
  // (platform/db/connection.ts) already guarantees that.
  await runMigrations({ pgPool: pool, logger: graphileLogger(logger) });
}

/**
 * Adds the queue entry for one attempt. The key is per attempt: a retry after a dead worker gets a fresh entry
 * while the dead worker's entry stays locked (graphile-worker would release it only after 4 hours; by then the
 * job is finished and that entry returns at once).
 */
export async function enqueueTrainingJob(trx: TrainingDb, jobId: string, attempt: number): Promise<void> {
  await sql`select graphile_worker.add_job(
    ${TRAINING_TASK}::text,
    json_build_object('jobId', ${jobId}::text, 'attempt', ${attempt}::int),
    job_key => ${`${jobId}:${attempt}`}::text,
    max_attempts => 1
  )`.execute(trx as Kysely<any>);
}

/**
 * Counts of the queue, for /v1/system-check: entries of jobs of the `visible` teams' models (an entry's key is
 * `<job id>:<attempt>`, see enqueueTrainingJob; graphile-worker's public view does not show payloads).
 */
export async function queueStats(db: TrainingDb, visible: JobVisibility): Promise<{ pending: number; locked: number }> {
  if (visible !== 'all' && visible.length === 0) {
    // Still a round trip to the queue's table, so the check measures it.
    await sql`select 1 from graphile_worker.jobs limit 1`.execute(db as Kysely<any>);
    return { pending: 0, locked: 0 };
  }
  const teams = visible === 'all' ? sql`true` : sql`m.entity = any(${[...visible]}::text[])`;
  const { rows } = await sql<{ pending: number; locked: number }>`
    select count(*) filter (where q.locked_at is null)::int as pending, count(*) filter (where q.locked_at is not null)::int as locked
    from graphile_worker.jobs q
    join training.jobs j on j.id::text = split_part(q.key, ':', 1)
    join training.models m on m.id = j.model_id
    where q.task_identifier = ${TRAINING_TASK} and ${teams}`.execute(db as Kysely<any>);
  return rows[0] ?? { pending: 0, locked: 0 };
}

export function graphileLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : 'debug';
    logger[method]({ scope, ...meta }, `graphile-worker: ${message}`);
  });
}
