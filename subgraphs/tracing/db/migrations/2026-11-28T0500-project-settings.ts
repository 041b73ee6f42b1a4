import { sql, type Kysely } from 'kysely';

/**
 * Settings of a project's traces, keyed like the calls ("entity/project"): for now its trace retention in days
 * (absent row: the platform default, TRELLIS_TRACE_RETENTION_DAYS). The bounds are the GraphQL setting's.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.project_settings (
      project_id text primary key,
      trace_retention_days integer not null check (trace_retention_days between 1 and 36500),
      updated_at timestamptz not null default now()
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('project_settings').ifExists().execute();
}
