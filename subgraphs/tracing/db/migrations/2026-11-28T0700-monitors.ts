import { sql, type Kysely } from 'kysely';

/**
 * Monitors (online evaluation): a project's scorers applied to its new calls, and what each did to each call.
 * `monitor_results` has one row per (monitor, call) the monitor looked at — scored, skipped by sampling or failed —
 * and its primary key is what makes scoring once-only: the consumer and the backfill insert the result with
 * ON CONFLICT DO NOTHING in the transaction that writes the score's feedback, and write feedback only for the
 * results that went in. `(monitor_id, created_at)` serves the counts and the threshold's recent window.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.monitors (
      id uuid primary key,
      project_id text not null,
      name text not null,
      op_names text[] not null default '{}',
      attributes jsonb not null default '{}',
      roots_only boolean not null default false,
      sampling_rate double precision not null check (sampling_rate > 0 and sampling_rate <= 1),
      scorer jsonb not null,
      active boolean not null default true,
      created_by text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (project_id, name)
    )`.execute(db);
  await sql`create index monitors_active on tracing.monitors (project_id) where active`.execute(db);
  await sql`
    create table tracing.monitor_results (
      monitor_id uuid not null references tracing.monitors (id) on delete cascade,
      call_id text not null,
      outcome text not null check (outcome in ('scored', 'skipped', 'failed')),
      score double precision,
      reason text,
      latency_ms double precision,
      created_at timestamptz not null default now(),
      primary key (monitor_id, call_id)
    )`.execute(db);
  await sql`create index monitor_results_recent on tracing.monitor_results (monitor_id, created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('monitor_results').ifExists().execute();
  await db.schema.dropTable('monitors').ifExists().execute();
}
