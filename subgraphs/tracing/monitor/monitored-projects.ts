import { sql, type Kysely, type Transaction } from 'kysely';
import type { NotificationListener } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { TracingDatabase } from '../db/database.js';
import { monitorStore } from './monitor.store.js';

/** NOTIFY'd in the transaction that creates, changes, pauses, resumes or deletes a monitor (a wake-up only). */
export const MONITORS_CHANGED_CHANNEL = 'trellis_tracing_monitors_changed';

/**
 * The projects that have an active monitor, held in memory: call ingestion asks `has(projectId)` for every write and
 * must not pay a query for it. Loaded at start, and loaded again whenever a process changes a monitor (a NOTIFY on
 * MONITORS_CHANGED_CHANNEL, sent at that change's commit; the listener also wakes everyone after a reconnect), so a
 * change made in another process is known here within a round trip. Calls ended before this process learns of a new
 * monitor are not published to it; a backfill scores them.
 */
export class MonitoredProjects {
  private projects: ReadonlySet<string> = new Set();
  private loading: Promise<void> | undefined;
  private again = false;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly logger: Logger,
  ) {}

  async start(listener: NotificationListener): Promise<void> {
    this.unlisten = await listener.listen(MONITORS_CHANGED_CHANNEL, () => void this.reload().catch((error) => this.logger.warn({ err: error }, 'could not reload the monitored projects')));
    await this.reload();
  }

  stop(): void {
    this.unlisten?.();
  }

  has(projectId: string): boolean {
    return this.projects.has(projectId);
  }

  /** Reads the set again (one read at a time; a request during a read makes one more read after it). */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        do {
          this.again = false;
          this.projects = new Set(await monitorStore.monitoredProjects(this.db));
        } while (this.again);
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** Wakes every process's set (this one's too), at the commit of the caller's transaction. */
  static async notifyChanged(trx: Transaction<TracingDatabase>): Promise<void> {
    await sql`select pg_notify(${MONITORS_CHANGED_CHANNEL}, '')`.execute(trx);
  }
}
