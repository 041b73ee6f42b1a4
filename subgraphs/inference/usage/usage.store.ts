import { sql, type Kysely, type RawBuilder } from 'kysely';
import { toStorableJson } from '../../../platform/storable-input.js';
import type { InferenceDatabase } from '../db/database.js';

export interface UsageRecord {
  createdAt: Date;
  entity: string;
  project: string;
  model: string;
  backend: string | null;
  deployment: string | null;
  apiKeyId: string | null;
  userId: string | null;
  endUser: string | null;
  stream: boolean;
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latencyMs: number;
  firstTokenMs: number | null;
  attempts: number;
  requestId: string | null;
}

export const USAGE_GROUP_BY = ['PROJECT', 'MODEL', 'STATUS', 'API_KEY', 'DAY', 'HOUR'] as const;
export type UsageGroupBy = (typeof USAGE_GROUP_BY)[number];

export interface UsageBucketRow {
  project?: string;
  model?: string;
  status?: number;
  api_key?: string | null;
  day?: Date;
  hour?: Date;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_mean_ms: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
}

export interface UsageScope {
  entity: string;
  project?: string;
  from?: Date | null;
  to?: Date | null;
}

const GROUP_COLUMNS: Record<UsageGroupBy, RawBuilder<unknown>> = {
  PROJECT: sql`project`,
  MODEL: sql`model`,
  STATUS: sql`status`,
  API_KEY: sql`api_key_id`,
  DAY: sql`date_trunc('day', created_at)`,
  HOUR: sql`date_trunc('hour', created_at)`,
};

type Db = Kysely<InferenceDatabase>;

/** Kysely queries of usage records. */
export const usageStore = {
  /**
   * One statement per batch with the rows as one JSON parameter (`jsonb_to_recordset`): building a multi-row
   * VALUES list with a parameter per column and row costs the event loop milliseconds per batch (500 rows × 20
   * columns = 10,000 parameters to compile and serialize), and that stalls every request in flight.
   */
  async insertMany(db: Db, records: UsageRecord[]): Promise<void> {
    if (records.length === 0) return;
    const rows = records.map((r) => ({
      created_at: r.createdAt.toISOString(),
      entity: r.entity,
      project: r.project,
      model: r.model,
      backend: r.backend,
      deployment: r.deployment,
      api_key_id: r.apiKeyId,
      user_id: r.userId,
      end_user: r.endUser,
      stream: r.stream,
      status: r.status,
      error_code: r.errorCode,
      error_message: r.errorMessage,
      prompt_tokens: r.promptTokens,
      completion_tokens: r.completionTokens,
      total_tokens: r.totalTokens,
      latency_ms: r.latencyMs,
      first_token_ms: r.firstTokenMs,
      attempts: r.attempts,
      request_id: r.requestId,
    }));
    await sql`
      insert into inference.usage_records (created_at, entity, project, model, backend, deployment, api_key_id, user_id, end_user, stream,
        status, error_code, error_message, prompt_tokens, completion_tokens, total_tokens, latency_ms, first_token_ms, attempts, request_id)
      select created_at, entity, project, model, backend, deployment, api_key_id, user_id, end_user, stream,
        status, error_code, error_message, prompt_tokens, completion_tokens, total_tokens, latency_ms, first_token_ms, attempts, request_id
      from jsonb_to_recordset(${toStorableJson(rows)}::jsonb) as r(created_at timestamptz, entity text, project text, model text,
        backend text, deployment text, api_key_id text, user_id text, end_user text, stream boolean, status integer, error_code text,
        error_message text, prompt_tokens integer, completion_tokens integer, total_tokens integer, latency_ms double precision,
        first_token_ms double precision, attempts integer, request_id text)
    `.execute(db);
  },

  /**
   * Retention: one batch of at most `limit` records created before `cutoff`, oldest first (the created_at index);
   * rows another sweep is deleting are skipped. Resolves with how many went.
   */
  async deleteOlderThan(db: Db, cutoff: Date, limit: number): Promise<number> {
    // The ids as an array (`= any(array(…))`), so the delete probes the primary key for them: with `in (subquery)`
    // the planner hash-joined the whole table on every batch (EXPLAIN, 100,000 records).
    const batch = db.selectFrom('usage_records').select('id').where('created_at', '<', cutoff).orderBy('created_at').limit(limit).forUpdate().skipLocked();
    const result = await db.deleteFrom('usage_records').where(sql<boolean>`id = any(array(${batch}))`).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  async aggregate(db: Db, scope: UsageScope, groupBy: readonly UsageGroupBy[]): Promise<UsageBucketRow[]> {
    let query = db.selectFrom('usage_records').where('entity', '=', scope.entity);
    if (scope.project !== undefined) query = query.where('project', '=', scope.project);
    if (scope.from) query = query.where('created_at', '>=', scope.from);
    if (scope.to) query = query.where('created_at', '<', scope.to);
    const groups = [...new Set(groupBy)];
    const rows = await query
      .select([
        ...groups.map((group) => GROUP_COLUMNS[group].as(group.toLowerCase())),
        sql<number>`count(*)::int`.as('requests'),
        sql<number>`(count(*) filter (where status >= 400))::int`.as('errors'),
        sql<number>`coalesce(sum(prompt_tokens), 0)::int`.as('prompt_tokens'),
        sql<number>`coalesce(sum(completion_tokens), 0)::int`.as('completion_tokens'),
        sql<number>`coalesce(sum(total_tokens), 0)::int`.as('total_tokens'),
        sql<number>`avg(latency_ms)`.as('latency_mean_ms'),
        sql<number>`percentile_cont(0.5) within group (order by latency_ms)`.as('latency_p50_ms'),
        sql<number>`percentile_cont(0.99) within group (order by latency_ms)`.as('latency_p99_ms'),
      ])
      .$if(groups.length > 0, (q) => q.groupBy(groups.map((group) => GROUP_COLUMNS[group])))
      .orderBy(sql`1`)
      .execute();
    return rows as unknown as UsageBucketRow[];
  },

  /** Records newest first, `limit` of them, those older than the record `beforeId` when given (keyset paging). */
  async recent(db: Db, scope: UsageScope, limit: number, beforeId?: string | null) {
    let query = db.selectFrom('usage_records').selectAll().where('entity', '=', scope.entity);
    if (scope.project !== undefined) query = query.where('project', '=', scope.project);
    if (beforeId) query = query.where('id', '<', beforeId as never);
    return query.orderBy('id', 'desc').limit(limit).execute();
  },

  /**
   * Usage per time bucket of `bucketSeconds` (aligned on the Unix epoch) within [from, to), split by `groupBy`;
   * buckets without requests are absent. Ordered by bucket start, then the groups.
   */
  async series(db: Db, scope: UsageScope & { from: Date; to: Date }, bucketSeconds: number, groupBy: readonly UsageGroupBy[]): Promise<(UsageBucketRow & { bucket: Date })[]> {
    // A literal (a validated integer), not a parameter: GROUP BY must see the very expression the SELECT has.
    const seconds = sql.lit(Math.trunc(bucketSeconds));
    const bucket = sql`to_timestamp(floor(extract(epoch from created_at) / ${seconds}) * ${seconds})`;
    let query = db.selectFrom('usage_records').where('entity', '=', scope.entity).where('created_at', '>=', scope.from).where('created_at', '<', scope.to);
    if (scope.project !== undefined) query = query.where('project', '=', scope.project);
    const groups = [...new Set(groupBy)];
    const rows = await query
      .select([
        bucket.as('bucket'),
        ...groups.map((group) => GROUP_COLUMNS[group].as(group.toLowerCase())),
        sql<number>`count(*)::int`.as('requests'),
        sql<number>`(count(*) filter (where status >= 400))::int`.as('errors'),
        sql<number>`coalesce(sum(prompt_tokens), 0)::int`.as('prompt_tokens'),
        sql<number>`coalesce(sum(completion_tokens), 0)::int`.as('completion_tokens'),
        sql<number>`coalesce(sum(total_tokens), 0)::int`.as('total_tokens'),
        sql<number>`avg(latency_ms)`.as('latency_mean_ms'),
        sql<number>`percentile_cont(0.5) within group (order by latency_ms)`.as('latency_p50_ms'),
        sql<number>`percentile_cont(0.99) within group (order by latency_ms)`.as('latency_p99_ms'),
      ])
      .groupBy([bucket, ...groups.map((group) => GROUP_COLUMNS[group])])
      .orderBy(sql`1`)
      .$if(groups.length > 0, (q) => q.orderBy(sql`2`))
      .execute();
    return rows as unknown as (UsageBucketRow & { bucket: Date })[];
  },
};
