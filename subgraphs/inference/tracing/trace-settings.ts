import { sql, type Kysely } from 'kysely';
import type { NotificationListener } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import { ChangeFollower } from '../change-follower.js';
import type { InferenceDatabase } from '../db/database.js';

/** NOTIFY channel: a project's trace setting changed; a wake-up call only (every process re-reads the table). */
export const TRACE_SETTINGS_CHANNEL = 'trellis_inference_trace_settings_changed';

/**
 * Which projects have completion tracing switched off. On by default: a request that names a project is traced
 * unless the project turned it off. Kept in memory (it is read on every request); `set` notifies
 * TRACE_SETTINGS_CHANNEL in its transaction, so every process re-reads the settings when the change commits, and
 * each also re-reads them every `refreshMs` in case a notification was lost.
 */
export class TraceSettings {
  private disabled = new Set<string>();
  private readonly changes: ChangeFollower;

  constructor(
    private readonly db: Kysely<InferenceDatabase>,
    listener: NotificationListener,
    refreshMs: number,
    logger: Logger,
  ) {
    this.changes = new ChangeFollower(() => this.load(), {
      listener,
      channel: TRACE_SETTINGS_CHANNEL,
      pollMs: refreshMs,
      logger,
      failure: 'reading trace settings failed',
    });
  }

  start(): Promise<void> {
    return this.changes.start();
  }

  stop(): void {
    this.changes.stop();
  }

  isEnabled(entity: string, project: string): boolean {
    return !this.disabled.has(`${entity}/${project}`);
  }

  async set(entity: string, project: string, enabled: boolean): Promise<boolean> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('project_settings')
        .values({ entity, project, trace_completions: enabled })
        .onConflict((conflict) => conflict.columns(['entity', 'project']).doUpdateSet({ trace_completions: enabled, updated_at: new Date() }))
        .execute();
      await sql`select pg_notify(${TRACE_SETTINGS_CHANNEL}, '')`.execute(trx);
    });
    // This process reads its own write before answering; the notification only arrives after the commit.
    await this.changes.refresh();
    return enabled;
  }

  private async load(): Promise<void> {
    const rows = await this.db.selectFrom('project_settings').select(['entity', 'project']).where('trace_completions', '=', false).execute();
    this.disabled = new Set(rows.map((row) => `${row.entity}/${row.project}`));
  }
}
