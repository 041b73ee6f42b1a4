import type { Kysely } from 'kysely';
import { MAX_RETENTION_DAYS } from '../../../platform/config.js';
import { retentionCutoff, type RetentionPass } from '../../../platform/db/retention-worker.js';
import { ValidationFailedError } from '../../../platform/errors.js';
import type { TracingDatabase } from '../db/database.js';
import { traceRetentionStore } from './trace-retention.store.js';

/**
 * How long a project's traces are kept: the project's own retention (set by its admins), else the platform default
 * (TRELLIS_TRACE_RETENTION_DAYS), else forever; and the deletion of what is past it, trace by trace (see
 * traceRetentionStore.deleteExpiredTraces), for the retention worker.
 */
export class TraceRetentionService {
  constructor(
    private readonly db: Kysely<TracingDatabase>,
    /** The platform default; undefined: traces are kept forever unless their project says otherwise. */
    readonly platformDefaultDays: number | undefined,
  ) {}

  /** The project's own retention; undefined when it follows the platform default. */
  ownDays(projectId: string): Promise<number | undefined> {
    return traceRetentionStore.retentionDays(this.db, projectId);
  }

  /** The retention that applies to the project; undefined: its traces are kept forever. */
  async effectiveDays(projectId: string): Promise<number | undefined> {
    return (await this.ownDays(projectId)) ?? this.platformDefaultDays;
  }

  /** Sets the project's retention (`days` argument of setTraceRetention); null: back to the platform default. */
  async set(projectId: string, days: number | null): Promise<void> {
    if (days !== null) assertRetentionDays(days);
    await traceRetentionStore.setRetentionDays(this.db, projectId, days);
  }

  /** One pass per project whose traces have a retention: its traces started before its cutoff, in batches. */
  async passes(): Promise<RetentionPass[]> {
    const own = await traceRetentionStore.projectRetentions(this.db);
    const projects = this.platformDefaultDays === undefined ? [...own.keys()] : await traceRetentionStore.projectsWithCalls(this.db);
    const passes: RetentionPass[] = [];
    for (const projectId of projects) {
      const days = own.get(projectId) ?? this.platformDefaultDays;
      if (days === undefined) continue;
      const cutoff = retentionCutoff(days);
      passes.push(async (limit) => (await traceRetentionStore.deleteExpiredTraces(this.db, projectId, cutoff, limit)).traces);
      // Calls whose start never arrived belong to no trace that could be judged: they go by when they were recorded.
      passes.push((limit) => traceRetentionStore.deleteExpiredUnstartedCalls(this.db, projectId, cutoff, limit));
    }
    return passes;
  }
}

/** A trace retention is whole days, at least one, at most a century (the environment's bounds too). */
function assertRetentionDays(days: number): void {
  if (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS) {
    throw new ValidationFailedError(
      [{ loc: ['days'], msg: `Input should be a whole number of days between 1 and ${MAX_RETENTION_DAYS}`, type: 'value_error' }],
      `days must be between 1 and ${MAX_RETENTION_DAYS} (null: the platform default)`,
    );
  }
}
