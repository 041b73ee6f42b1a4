import type { Kysely } from 'kysely';
import type { PlatformConfig } from '../../../platform/config.js';
import { retentionCutoff, RetentionWorker } from '../../../platform/db/retention-worker.js';
import type { Logger } from '../../../platform/logger.js';
import type { InferenceDatabase } from '../db/database.js';
import { usageStore } from './usage.store.js';

/**
 * Usage records older than TRELLIS_USAGE_RETENTION_DAYS, deleted in batches on the platform's retention schedule;
 * with no retention set the worker finds nothing to do. A record stands alone (nothing refers to it), so the only
 * rule is its age: usage totals of the periods deleted are gone with them.
 */
export function createUsageRetentionWorker(db: Kysely<InferenceDatabase>, days: number | undefined, config: PlatformConfig, logger: Logger): RetentionWorker {
  return new RetentionWorker(
    'inference-usage-retention',
    async () => {
      if (days === undefined) return [];
      const cutoff = retentionCutoff(days);
      return [(limit) => usageStore.deleteOlderThan(db, cutoff, limit)];
    },
    config.retention,
    logger,
  );
}
