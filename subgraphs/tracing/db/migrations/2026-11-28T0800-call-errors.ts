import { sql, type Kysely } from 'kysely';

/**
 * The failed calls of a project, newest first: what the traces list's "Status: error" filter reads. Status is derived
 * (call-fields.ts: a CASE over exception, summary and ended_at), so without this the filter read every call of the
 * project until it had a page and its count (≈ 370 ms at 1,000,000 calls, bench/traces-table.ts). `status = 'error'`
 * compiles to `exception is not null`, which this partial index serves; failed calls are few, so it is small.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index calls_errors on tracing.calls (project_id, started_at desc nulls last, id) where exception is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists tracing.calls_errors`.execute(db);
}
