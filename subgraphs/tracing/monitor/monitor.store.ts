import { sql, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import { INFERENCE_COMPLETIONS_EVENT } from '../../../platform/events/contracts.js';
import type { MonitorResultsTable, MonitorsTable, TracingDatabase } from '../db/database.js';
import { toStorableJson, toStorableText } from '../../../platform/storable-input.js';
import type { FeedbackRow } from '../feedback/feedback.store.js';
import type { MonitoredCall, MonitoredCallField } from './monitored-call.js';

type Db = Kysely<TracingDatabase> | Transaction<TracingDatabase>;

export type MonitorRow = Selectable<MonitorsTable>;
export type NewMonitorRow = Omit<MonitorRow, 'created_at' | 'updated_at' | 'threshold_crossed'>;
export type MonitorResultRow = Omit<MonitorResultsTable, 'created_at'>;

/** Outcome counts and latency of one monitor's results. */
export interface MonitorStatsRow {
  monitor_id: string;
  scored: number;
  skipped: number;
  failed: number;
  mean_latency_ms: number | null;
  mean_score: number | null;
  prompt_tokens: number;
  completion_tokens: number;
}

/** The columns of a score's feedback row, as feedbackRowOf builds it. */
const FEEDBACK_COLUMNS = [
  'project_id', 'id', 'weave_ref', 'feedback_type', 'payload', 'creator', 'runnable_ref', 'call_ref', 'trigger_ref', 'annotation_ref', 'wb_user_id',
  'created_at', 'created_ms', 'scorer_id', 'monitor_id', 'span_type', 'scorer_tags', 'scorer_rating_names', 'scorer_rating_values', 'rating',
  'span_agent_name', 'span_agent_version', 'span_status_code',
] as const satisfies readonly (keyof FeedbackRow)[];
/**
 * The columns of a score's feedback row that are the scored result's own (`p`: the result, `s`: its monitor's shared
 * row): the rest are the shared row's. The payload is Weave's scorer output `{output, reason}`, the score the
 * primary rating.
 */
const SCORE_FEEDBACK_VALUES: Partial<Record<(typeof FEEDBACK_COLUMNS)[number], string>> = {
  id: 'p.feedback_id',
  weave_ref: 's.weave_ref || p.call_id',
  payload: "jsonb_build_object('output', p.score, 'reason', p.reason)",
  scorer_rating_values: 'array[p.score]',
  rating: 'p.score',
};

export const monitorStore = {
  async insert(db: Db, row: NewMonitorRow): Promise<MonitorRow> {
    return db
      .insertInto('monitors')
      .values({
        ...row,
        attributes: JSON.stringify(row.attributes) as never,
        scorer: JSON.stringify(row.scorer) as never,
        threshold: row.threshold === null ? null : (JSON.stringify(row.threshold) as never),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async update(db: Db, projectId: string, id: string, fields: Partial<Omit<NewMonitorRow, 'id' | 'project_id' | 'created_by'>>): Promise<MonitorRow | undefined> {
    const values: Record<string, unknown> = { ...fields, updated_at: sql`now()` };
    if ('attributes' in fields) values.attributes = JSON.stringify(fields.attributes);
    if ('scorer' in fields) values.scorer = JSON.stringify(fields.scorer);
    if ('threshold' in fields) values.threshold = fields.threshold === null ? null : JSON.stringify(fields.threshold);
    return db.updateTable('monitors').set(values as never).where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst();
  },

  async delete(db: Db, projectId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('monitors').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  list(db: Db, projectId: string): Promise<MonitorRow[]> {
    return db.selectFrom('monitors').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute();
  },

  get(db: Db, projectId: string, id: string): Promise<MonitorRow | undefined> {
    return db.selectFrom('monitors').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  },

  /** The active monitors of these projects. */
  active(db: Db, projectIds: string[]): Promise<MonitorRow[]> {
    if (projectIds.length === 0) return Promise.resolve([]);
    return db.selectFrom('monitors').selectAll().where('active', '=', true).where('project_id', 'in', projectIds).execute();
  },

  /** Projects with at least one active monitor. */
  async monitoredProjects(db: Db): Promise<string[]> {
    return (await db.selectFrom('monitors').select('project_id').distinct().where('active', '=', true).execute()).map((row) => row.project_id);
  },

  /**
   * Those of the calls (`project_id`, `id` pairs, of any projects) that have both their start and their end recorded
   * (an end that came first waits for its start), in one statement through the calls' primary key, with their
   * `fields` (the ones the monitors read).
   */
  async endedCalls(db: Db, keys: readonly { project_id: string; id: string }[], fields: readonly MonitoredCallField[]): Promise<MonitoredCall[]> {
    if (keys.length === 0) return [];
    return (await db
      .selectFrom('calls')
      .select(['project_id', 'id', ...fields])
      .where(sql<boolean>`(project_id, id) in (select * from unnest(${keys.map((key) => key.project_id)}::text[], ${keys.map((key) => key.id)}::text[]))`)
      .where('ended_at', 'is not', null)
      .where('started_at', 'is not', null)
      .execute()) as MonitoredCall[];
  },

  /**
   * A page of the project's ended calls started in [from, to), after `after` in (started_at, id) order (the
   * calls_started index), with their `fields`, for a backfill.
   */
  async endedCallsStartedIn(
    db: Db,
    projectId: string,
    window: { from: Date; to: Date },
    after: { startedAt: Date; id: string } | null,
    limit: number,
    fields: readonly MonitoredCallField[],
  ): Promise<(MonitoredCall & { started_at: Date })[]> {
    let query = db
      .selectFrom('calls')
      .select(['project_id', 'id', ...fields, 'started_at'])
      .where('project_id', '=', projectId)
      .where('started_at', '>=', window.from)
      .where('started_at', '<', window.to)
      .where('ended_at', 'is not', null);
    if (after) query = query.where(sql<boolean>`(started_at, id) > (${after.startedAt}, ${after.id})`);
    return (await query.orderBy('started_at').orderBy('id').limit(limit).execute()) as (MonitoredCall & { started_at: Date })[];
  },

  /** Which of these (monitor, call) pairs have a result already (`monitor_id/call_id` keys). */
  async recordedPairs(db: Db, monitorIds: string[], callIds: string[]): Promise<Set<string>> {
    if (monitorIds.length === 0 || callIds.length === 0) return new Set();
    const rows = await db.selectFrom('monitor_results').select(['monitor_id', 'call_id']).where('monitor_id', 'in', monitorIds).where('call_id', 'in', callIds).execute();
    return new Set(rows.map((row) => resultKey(row.monitor_id, row.call_id)));
  },

  /**
   * Records results and, for the scored results that went in, their score feedback, in one statement whatever their
   * number. The results travel as one array parameter per column (a parameter per column and row passed PostgreSQL's
   * 65,535 bind parameters at 2,850 scored calls, which a batch of events easily names); each scoring monitor's
   * feedback columns (`scoreColumns`, see monitor-scoring's scoreFeedbackColumns) travel once, and each scored
   * result's feedback row is that row with the result's own id, call ref, payload and rating. A result already there
   * (a redelivered event, another process, an earlier backfill) is left as it is, and its feedback is not written.
   * Resolves with how many results went in, by outcome.
   */
  async recordResults(
    db: Db,
    rows: (MonitorResultRow & { feedback_id: string | null })[],
    scoreColumns: { scoring_monitor: string; columns: FeedbackRow }[],
  ): Promise<Record<MonitorResultRow['outcome'], number>> {
    const counts = { scored: 0, skipped: 0, failed: 0 };
    if (rows.length === 0) return counts;
    const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((row) => row[key]);
    const { rows: inserted } = await sql<{ outcome: MonitorResultRow['outcome']; n: number }>`
      with pairs as materialized (
        select * from unnest(
          ${column('monitor_id')}::uuid[], ${column('call_id')}::text[], ${column('outcome')}::text[], ${column('score')}::double precision[],
          ${rows.map((row) => toStorableText(row.reason))}::text[], ${column('latency_ms')}::double precision[], ${column('prompt_tokens')}::integer[],
          ${column('completion_tokens')}::integer[], ${column('feedback_id')}::uuid[])
          as p(monitor_id, call_id, outcome, score, reason, latency_ms, prompt_tokens, completion_tokens, feedback_id)
      ), shared as (
        select s.scoring_monitor, f.* from jsonb_to_recordset(${toStorableJson(scoreColumns)}::jsonb) as s(scoring_monitor uuid, columns jsonb)
          cross join lateral jsonb_populate_record(null::tracing.feedback, s.columns) as f
      ), results as (
        insert into tracing.monitor_results (monitor_id, call_id, outcome, score, reason, latency_ms, prompt_tokens, completion_tokens)
        select monitor_id, call_id, outcome, score, reason, latency_ms, prompt_tokens, completion_tokens from pairs
        on conflict (monitor_id, call_id) do nothing
        returning monitor_id, call_id, outcome
      ), counted as (
        -- the monitors' counts (stats read them), by the results that went in; one lock order for concurrent writers
        insert into tracing.monitor_counts as m (monitor_id, scored, skipped, failed, latency_sum, latency_n, score_sum, prompt_tokens, completion_tokens)
        select p.monitor_id,
          count(*) filter (where p.outcome = 'scored'), count(*) filter (where p.outcome = 'skipped'), count(*) filter (where p.outcome = 'failed'),
          coalesce(sum(p.latency_ms) filter (where p.outcome <> 'skipped' and p.latency_ms is not null), 0),
          count(p.latency_ms) filter (where p.outcome <> 'skipped'),
          coalesce(sum(p.score) filter (where p.outcome = 'scored'), 0),
          coalesce(sum(p.prompt_tokens), 0), coalesce(sum(p.completion_tokens), 0)
        from results r join pairs p using (monitor_id, call_id)
        group by p.monitor_id
        order by p.monitor_id
        on conflict (monitor_id) do update set
          scored = m.scored + excluded.scored, skipped = m.skipped + excluded.skipped, failed = m.failed + excluded.failed,
          latency_sum = m.latency_sum + excluded.latency_sum, latency_n = m.latency_n + excluded.latency_n,
          score_sum = m.score_sum + excluded.score_sum,
          prompt_tokens = m.prompt_tokens + excluded.prompt_tokens, completion_tokens = m.completion_tokens + excluded.completion_tokens
      ), scores as (
        insert into tracing.feedback (${sql.raw(FEEDBACK_COLUMNS.join(', '))})
        select ${sql.raw(FEEDBACK_COLUMNS.map((name) => `${SCORE_FEEDBACK_VALUES[name] ?? `s.${name}`}`).join(', '))}
        from results r join pairs p using (monitor_id, call_id) join shared s on s.scoring_monitor = p.monitor_id
        where r.outcome = 'scored'
      )
      select outcome, count(*)::int as n from results group by outcome`.execute(db);
    for (const row of inserted) counts[row.outcome] = row.n;
    return counts;
  },

  /**
   * The project and id of each call in traced-inference events' outbox rows (`eventRows`): only those two values are
   * read out of the payloads, which stay in the database.
   */
  async inferenceCallKeys(db: Db, events: RawBuilder<unknown>): Promise<{ project_id: string; id: string }[]> {
    const { rows } = await sql<{ project_id: string; id: string }>`
      select e.entity || '/' || e.project as project_id, c.call ->> 'id' as id
      from ${events} as e cross join lateral jsonb_array_elements(
        case when e.type = ${INFERENCE_COMPLETIONS_EVENT} then e.payload -> 'calls' else jsonb_build_array(e.payload -> 'call') end) as c(call)`.execute(db);
    return rows;
  },

  /** Scored results of the monitor recorded in the last `minutes`: how many, and their mean score. */
  async recentMean(db: Db, monitorId: string, minutes: number): Promise<{ samples: number; mean: number | null }> {
    const { rows } = await sql<{ samples: number; mean: number | null }>`
      select count(*)::int as samples, avg(score) as mean from tracing.monitor_results
      where monitor_id = ${monitorId} and outcome = 'scored' and created_at > now() - make_interval(mins => ${minutes})`.execute(db);
    return rows[0]!;
  },

  /**
   * Marks the monitor's threshold crossed or not; true only when that changed. The row lock makes two processes'
   * transactions take turns, so one crossing is seen as a change once.
   */
  async setThresholdCrossed(db: Db, monitorId: string, crossed: boolean): Promise<boolean> {
    const result = await db.updateTable('monitors').set({ threshold_crossed: crossed }).where('id', '=', monitorId).where('threshold_crossed', '<>', crossed).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** The monitors' counts (kept by recordResults): one row per monitor that has recorded a result. */
  async stats(db: Db, monitorIds: string[]): Promise<MonitorStatsRow[]> {
    if (monitorIds.length === 0) return [];
    const { rows } = await sql<MonitorStatsRow>`
      select monitor_id, scored::int, skipped::int, failed::int,
        case when latency_n > 0 then latency_sum / latency_n end as mean_latency_ms,
        case when scored > 0 then score_sum / scored end as mean_score,
        prompt_tokens::int, completion_tokens::int
      from tracing.monitor_counts
      where monitor_id = any(${monitorIds}::uuid[])`.execute(db);
    return rows;
  },
};

export const resultKey = (monitorId: string, callId: string) => `${monitorId}/${callId}`;
