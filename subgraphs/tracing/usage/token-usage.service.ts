import type { Kysely } from 'kysely';
import { ValidationFailedError } from '../../../platform/errors.js';
import type { TracingDatabase } from '../db/database.js';
import { aggregateTokens } from './token-usage.store.js';
import { toTokenUsage, type TokenUsage } from './token-usage.type.js';

/** Token totals of a trace or of a project's window (a call's own usage is read from its summary). */
export class TokenUsageService {
  constructor(private readonly db: Kysely<TracingDatabase>) {}

  async ofTrace(projectId: string, traceId: string): Promise<TokenUsage> {
    return toTokenUsage(await aggregateTokens(this.db, { projectId, traceId }));
  }

  /** The calls started within [from, to); either bound may be absent. */
  async ofWindow(projectId: string, from: Date | null, to: Date | null): Promise<TokenUsage> {
    if (from && to && from >= to) {
      throw new ValidationFailedError([{ loc: ['from'], msg: 'Input should be before to', type: 'value_error' }], 'from: Input should be before to');
    }
    return toTokenUsage(await aggregateTokens(this.db, { projectId, from, to }));
  }
}
