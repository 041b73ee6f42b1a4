import { BadRequestError, ValidationFailedError } from '../../../platform/errors.js';
import type { PriceTable } from '../pricing/price-table.js';
import { usageStore, type UsageBucketRow, type UsageGroupBy, type UsageScope } from './usage.store.js';
import { InferenceUsageBucket, InferenceUsageRecord, toUsageBucket } from './usage.type.js';

type BucketRow = UsageBucketRow & { bucket?: Date };

/** A bucket's groups other than the model, to match a bucket with its per-model rows. */
const groupKeyOf = (row: BucketRow): string =>
  JSON.stringify([row.project, row.status, row.api_key, row.day?.getTime(), row.hour?.getTime(), row.bucket?.getTime()]);

/** Read side of usage: the service the usage resolvers call (its own module, so services.ts needs no resolver). */
export class UsageQueries {
  constructor(
    private readonly db: Parameters<typeof usageStore.aggregate>[0],
    private readonly prices: PriceTable,
  ) {}

  async aggregate(scope: Parameters<typeof usageStore.aggregate>[1], groupBy: UsageGroupBy[]): Promise<InferenceUsageBucket[]> {
    if (scope.from && scope.to && scope.from >= scope.to) throw new BadRequestError('from must be before to', { param: 'from' });
    const rows = await usageStore.aggregate(this.db, scope, groupBy);
    const costs = await this.costsOf(rows, groupBy, (withModel) => usageStore.aggregate(this.db, scope, withModel));
    return rows.map((row, index) => toUsageBucket(row, costs[index]!));
  }

  /**
   * The cost of each bucket. Prices are per model, so buckets not split by model are priced from the same totals
   * split by model as well (a second query), summed per bucket: null when one of its models has no price.
   */
  private async costsOf(rows: BucketRow[], groupBy: UsageGroupBy[], byModel: (groupBy: UsageGroupBy[]) => Promise<BucketRow[]>): Promise<(number | null)[]> {
    const costOfRow = (row: BucketRow) => this.prices.costOf(row.model!, row.prompt_tokens, row.completion_tokens);
    if (groupBy.includes('MODEL')) return rows.map(costOfRow);
    if (rows.length === 0) return [];
    const perModel = new Map<string, BucketRow[]>();
    for (const row of await byModel([...groupBy, 'MODEL'])) perModel.set(groupKeyOf(row), [...(perModel.get(groupKeyOf(row)) ?? []), row]);
    return rows.map((row) =>
      this.prices.totalCostOf((perModel.get(groupKeyOf(row)) ?? []).map((entry) => ({ model: entry.model!, inputTokens: entry.prompt_tokens, outputTokens: entry.completion_tokens }))),
    );
  }

  /** Usage over time: `bucketSeconds` buckets within [from, to), at most MAX_SERIES_BUCKETS of them. */
  async series(scope: UsageScope & { from: Date; to: Date }, bucketSeconds: number, groupBy: UsageGroupBy[]): Promise<InferenceUsageBucket[]> {
    if (scope.from >= scope.to) throw new BadRequestError('from must be before to', { param: 'from' });
    if (!Number.isInteger(bucketSeconds) || bucketSeconds < 1) throw validationIssue('bucketSeconds', 'Input should be greater than or equal to 1', 'greater_than_equal');
    if ((scope.to.getTime() - scope.from.getTime()) / 1000 / bucketSeconds > MAX_SERIES_BUCKETS) {
      throw validationIssue('bucketSeconds', `Input should make at most ${MAX_SERIES_BUCKETS} buckets between from and to`, 'value_error');
    }
    const timeGroup = groupBy.find((group) => group === 'DAY' || group === 'HOUR');
    if (timeGroup) throw validationIssue('groupBy', `${timeGroup} cannot split a series (its buckets are bucketSeconds long)`, 'value_error');
    const rows = await usageStore.series(this.db, scope, bucketSeconds, groupBy);
    const costs = await this.costsOf(rows, groupBy, (withModel) => usageStore.series(this.db, scope, bucketSeconds, withModel));
    return rows.map((row, index) => toUsageBucket({ ...row, hour: row.bucket }, costs[index]!));
  }

  /** Records newest first: `limit` of them, older than the record `beforeId` when given. */
  async recent(scope: { entity: string; project: string }, limit: number, beforeId?: string | null): Promise<InferenceUsageRecord[]> {
    const rows = await usageStore.recent(this.db, scope, limit, beforeId);
    return rows.map((row) =>
      Object.assign(new InferenceUsageRecord(), {
        id: String(row.id),
        createdAt: row.created_at,
        entity: row.entity,
        project: row.project,
        model: row.model,
        backend: row.backend,
        deployment: row.deployment,
        apiKeyId: row.api_key_id,
        endUser: row.end_user,
        stream: row.stream,
        status: row.status,
        errorCode: row.error_code,
        errorMessage: row.error_message,
        promptTokens: row.prompt_tokens,
        completionTokens: row.completion_tokens,
        totalTokens: row.total_tokens,
        latencyMs: row.latency_ms,
        firstTokenMs: row.first_token_ms,
        attempts: row.attempts,
        requestId: row.request_id,
        cost: this.prices.costOf(row.model, row.prompt_tokens, row.completion_tokens),
      }),
    );
  }
}

/** The most buckets one series may have (a year of hours is 8,760). */
export const MAX_SERIES_BUCKETS = 10_000;

function validationIssue(argument: string, msg: string, type: string): ValidationFailedError {
  return new ValidationFailedError([{ loc: [argument], msg, type }], `${argument}: ${msg}`);
}
