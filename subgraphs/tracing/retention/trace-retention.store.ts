import { sql, type Kysely } from 'kysely';
import type { TracingDatabase } from '../db/database.js';

type Db = Kysely<TracingDatabase>;

export interface ExpiredTracesBatch {
  /** Calls that decided a trace's fate (its root, or its earliest calls when it has no root): at most the limit. */
  traces: number;
  /** Calls deleted: those traces whole. */
  calls: number;
  /** Feedback on those calls, deleted with them. */
  feedback: number;
}

/**
 * The deletion both batches end with: the calls listed by the CTE `doomed_calls`, and the feedback on them (its
 * `weave_ref` names the call). Leaves the CTEs `deleted_calls` and `deleted_feedback` for the counts.
 */
function deleteCallsWithTheirFeedback(projectId: string) {
  return sql`deleted_calls as (
        delete from tracing.calls c where c.project_id = ${projectId} and c.id = any(array(select id from doomed_calls))
        returning c.id
      ), deleted_feedback as (
        delete from tracing.feedback f
        where f.project_id = ${projectId} and f.weave_ref = any(array(select 'weave:///' || ${projectId} || '/call/' || id from deleted_calls))
        returning f.id
      )`;
}

/** Kysely queries of trace retention: the per-project setting and the batched deletion. */
export const traceRetentionStore = {
  async retentionDays(db: Db, projectId: string): Promise<number | undefined> {
    const row = await db.selectFrom('project_settings').select('trace_retention_days').where('project_id', '=', projectId).executeTakeFirst();
    return row?.trace_retention_days;
  },

  /** Sets the project's retention; null removes it (the platform default applies again). */
  async setRetentionDays(db: Db, projectId: string, days: number | null): Promise<void> {
    if (days === null) {
      await db.deleteFrom('project_settings').where('project_id', '=', projectId).execute();
      return;
    }
    await db
      .insertInto('project_settings')
      .values({ project_id: projectId, trace_retention_days: days })
      .onConflict((conflict) => conflict.column('project_id').doUpdateSet({ trace_retention_days: days, updated_at: sql<Date>`now()` }))
      .execute();
  },

  /** Every project's own retention. */
  async projectRetentions(db: Db): Promise<Map<string, number>> {
    const rows = await db.selectFrom('project_settings').select(['project_id', 'trace_retention_days']).execute();
    return new Map(rows.map((row) => [row.project_id, row.trace_retention_days]));
  },

  /**
   * The projects that have calls, one index probe each (a skip scan of the primary key, whose first column is the
   * project): `select distinct` would read every call.
   */
  async projectsWithCalls(db: Db): Promise<string[]> {
    const { rows } = await sql<{ project_id: string }>`
      with recursive projects as (
        (select project_id from tracing.calls order by project_id limit 1)
        union all
        select (select c.project_id from tracing.calls c where c.project_id > projects.project_id order by c.project_id limit 1)
        from projects where projects.project_id is not null
      )
      select project_id from projects where project_id is not null`.execute(db);
    return rows.map((row) => row.project_id);
  },

  /**
   * One batch of the project's traces past `cutoff`, deleted whole with the feedback on their calls, in one
   * statement. A trace goes by its root call's start (the call without a parent): a root started before the cutoff
   * takes every call of its trace with it, children started later included, so no trace is left half. A call whose
   * trace has no root (a child whose root was never recorded, or arrived after the root was deleted) goes by its
   * own start, with its trace. At most `limit` such deciding calls per batch, oldest first (the project's
   * started_at index); calls being deleted by another sweep are skipped.
   *
   * Every step probes an index per row (EXPLAIN on 100,000 calls): the root check is a scalar subquery, which
   * PostgreSQL runs per candidate through calls_trace (as NOT EXISTS inside the OR it hashed every root of the
   * table), and the deletes take their keys as arrays (`= any(array(…))`), probing the primary key and
   * feedback_weave_ref (joined, they read every call and feedback row of the project on each batch).
   */
  async deleteExpiredTraces(db: Db, projectId: string, cutoff: Date, limit: number): Promise<ExpiredTracesBatch> {
    const { rows } = await sql<{ traces: string; calls: string; feedback: string }>`
      with doomed as (
        select c.id, c.trace_id from tracing.calls c
        where c.project_id = ${projectId} and c.started_at < ${cutoff}
          and (c.parent_id is null or (
            select r.id from tracing.calls r where r.project_id = c.project_id and r.trace_id = c.trace_id and r.parent_id is null limit 1) is null)
        order by c.started_at, c.id
        limit ${limit}
        for update of c skip locked
      ), doomed_calls as (
        select d.id from doomed d
        union
        select k.id from tracing.calls k join doomed d on d.trace_id is not null and k.trace_id = d.trace_id
        where k.project_id = ${projectId}
      ), ${deleteCallsWithTheirFeedback(projectId)}
      select (select count(*) from doomed) as traces, (select count(*) from deleted_calls) as calls,
        (select count(*) from deleted_feedback) as feedback`.execute(db);
    const row = rows[0]!;
    return { traces: Number(row.traces), calls: Number(row.calls), feedback: Number(row.feedback) };
  },

  /**
   * One batch of the project's calls of which only the end was ever recorded (no start, so no trace to follow),
   * recorded before `cutoff`, with the feedback on them. Resolves with how many calls went.
   */
  async deleteExpiredUnstartedCalls(db: Db, projectId: string, cutoff: Date, limit: number): Promise<number> {
    const { rows } = await sql<{ calls: string }>`
      with doomed_calls as (
        select c.id from tracing.calls c
        where c.project_id = ${projectId} and c.started_at is null and c.created_at < ${cutoff}
        order by c.id
        limit ${limit}
        for update of c skip locked
      ), ${deleteCallsWithTheirFeedback(projectId)}
      select (select count(*) from deleted_calls) as calls, (select count(*) from deleted_feedback) as feedback`.execute(db);
    return Number(rows[0]!.calls);
  },
};
