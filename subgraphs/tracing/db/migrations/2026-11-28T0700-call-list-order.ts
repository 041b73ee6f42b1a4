import { sql, type Kysely } from 'kysely';

/**
 * Indexes in the orders the traces list asks for, so a page reads its rows from an index instead of sorting every
 * call of the project (a top-N sort that grows with the project: ≈ 180 ms a page at 200,000 calls).
 *
 * Reads sort with NULLS LAST and then by id ascending (call.store.ts). calls_started (project_id, started_at, id)
 * serves oldest first; newest first is `started_at DESC NULLS LAST, id ASC`, which neither direction of it gives.
 * Slowest first sorts by the latency Weave derives (`summary.weave.latency_ms`, call-fields.ts); the expression
 * here is that one, as the planner only matches an index on the same expression.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index calls_started_desc on tracing.calls (project_id, started_at desc nulls last, id)`.execute(db);
  await sql`
    create index calls_latency_desc on tracing.calls
      (project_id, ((extract(epoch from (ended_at - started_at)) * 1000)::double precision) desc nulls last, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists tracing.calls_latency_desc`.execute(db);
  await sql`drop index if exists tracing.calls_started_desc`.execute(db);
}
