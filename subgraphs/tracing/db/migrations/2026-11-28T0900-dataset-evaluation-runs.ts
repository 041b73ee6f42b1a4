import { sql, type Kysely } from 'kysely';

/**
 * The evaluation runs the platform is running now (evaluateDataset), one row per run while it runs: which process
 * runs it and when that process last said it still does. A run whose heartbeat stopped (its process was killed) is
 * finished as an error by any process's sweep, so no run stays "running" forever.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table tracing.dataset_evaluation_runs (
    project_id text not null,
    run_id text not null,
    owner text not null,
    heartbeat_at timestamptz not null default now(),
    primary key (project_id, run_id)
  )`.execute(db);
  await sql`create index dataset_evaluation_runs_heartbeat on tracing.dataset_evaluation_runs (heartbeat_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists tracing.dataset_evaluation_runs`.execute(db);
}
