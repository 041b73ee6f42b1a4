import { sql, type Kysely } from 'kysely';

/**
 * The tracing schema. Projects are addressed as Weave does, "entity/project" (text), so a call can be stored
 * without a round trip to identity. Start and end of a call are columns of one row: the end may arrive before
 * the start (batches are retried independently), so every start column is nullable.
 */
// Raw SQL does not see Kysely's withSchema binding, so every name is qualified with the subgraph's schema.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.calls (
      project_id text not null,
      id text not null,
      trace_id text,
      parent_id text,
      op_name text,
      display_name text,
      thread_id text,
      turn_id text,
      started_at timestamptz,
      attributes jsonb,
      inputs jsonb,
      otel_dump jsonb,
      wb_user_id text,
      wb_run_id text,
      wb_run_step integer,
      ended_at timestamptz,
      output jsonb,
      summary jsonb,
      exception text,
      -- 'call' | 'prediction' | 'evaluation_run' | 'score': the v2 evaluation API's records are calls too.
      kind text not null default 'call',
      created_at timestamptz not null default now(),
      primary key (project_id, id)
    )`.execute(db);
  await sql`create index calls_trace on tracing.calls (project_id, trace_id)`.execute(db);
  await sql`create index calls_parent on tracing.calls (project_id, parent_id)`.execute(db);
  await sql`create index calls_started on tracing.calls (project_id, started_at, id)`.execute(db);
  await sql`create index calls_kind on tracing.calls (project_id, kind, created_at) where kind <> 'call'`.execute(db);

  await sql`
    create table tracing.objects (
      project_id text not null,
      object_id text not null,
      digest text not null,
      version_index integer not null,
      kind text not null,
      base_object_class text,
      val jsonb not null,
      wb_user_id text,
      created_at timestamptz not null default now(),
      primary key (project_id, object_id, digest),
      unique (project_id, object_id, version_index)
    )`.execute(db);

  await sql`
    create table tracing.tables (
      project_id text not null,
      digest text not null,
      row_digests text[] not null,
      created_at timestamptz not null default now(),
      primary key (project_id, digest)
    )`.execute(db);
  await sql`
    create table tracing.table_rows (
      project_id text not null,
      digest text not null,
      val jsonb not null,
      primary key (project_id, digest)
    )`.execute(db);

  await sql`
    create table tracing.files (
      project_id text not null,
      digest text not null,
      content bytea not null,
      created_at timestamptz not null default now(),
      primary key (project_id, digest)
    )`.execute(db);

  // Typed scorer columns are derived on write, so /feedback/aggregate filters and groups on plain columns.
  await sql`
    create table tracing.feedback (
      project_id text not null,
      id uuid not null,
      weave_ref text not null,
      feedback_type text not null,
      payload jsonb not null,
      creator text,
      runnable_ref text,
      call_ref text,
      trigger_ref text,
      annotation_ref text,
      wb_user_id text,
      created_at timestamptz not null default now(),
      created_ms bigint not null,
      scorer_id text,
      monitor_id text,
      span_type text,
      scorer_tags text[] not null default '{}',
      scorer_rating_names text[] not null default '{}',
      scorer_rating_values double precision[] not null default '{}',
      rating double precision,
      span_agent_name text,
      span_agent_version text,
      span_status_code text not null default 'UNSET',
      primary key (project_id, id)
    )`.execute(db);
  // The aggregation reads only the rows inside its window: its cost follows the window, not the table.
  await sql`create index feedback_window on tracing.feedback (project_id, created_ms)`.execute(db);
  await sql`create index feedback_weave_ref on tracing.feedback (project_id, weave_ref)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['feedback', 'files', 'table_rows', 'tables', 'objects', 'calls']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
