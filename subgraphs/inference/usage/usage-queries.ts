import { BadRequestError } from '../../../platform/errors.js';
import { usageStore, type UsageGroupBy } from './usage.store.js';
import { InferenceUsageBucket, InferenceUsageRecord, toUsageBucket } from './usage.type.js';

/** Read side of usage: the service the usage resolvers call (its own module, so services.ts needs no resolver). */
export class UsageQueries {
  constructor(private readonly db: Parameters<typeof usageStore.aggregate>[0]) {}

  async aggregate(scope: Parameters<typeof usageStore.aggregate>[1], groupBy: UsageGroupBy[]): Promise<InferenceUsageBucket[]> {
    if (scope.from && scope.to && scope.from >= scope.to) throw new BadRequestError('from must be before to', { param: 'from' });
    return (await usageStore.aggregate(this.db, scope, groupBy)).map(toUsageBucket);
  }

  async recent(scope: { entity: string; project: string }, limit: number): Promise<InferenceUsageRecord[]> {
    const rows = await usageStore.recent(this.db, scope, limit);
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
      }),
    );
  }
}
