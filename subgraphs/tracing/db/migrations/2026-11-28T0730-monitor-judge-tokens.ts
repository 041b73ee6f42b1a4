import { sql, type Kysely } from 'kysely';

/** The tokens an LLM judge spent on a call (null for built-in checks), for a monitor's cost. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table tracing.monitor_results add column prompt_tokens integer, add column completion_tokens integer`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table tracing.monitor_results drop column prompt_tokens, drop column completion_tokens`.execute(db);
}
