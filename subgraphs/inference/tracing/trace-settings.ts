import type { Kysely } from 'kysely';
import type { Logger } from '../../../platform/logger.js';
import type { InferenceDatabase } from '../db/database.js';

/**
 * Which projects have completion tracing switched off. On by default: a request that names a project is traced
 * unless the project turned it off. Kept in memory (it is read on every request) and re-read periodically, so
 * changes made through another process are seen within the refresh interval.
 */
export class TraceSettings {
  private disabled = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Kysely<InferenceDatabase>,
    private readonly logger: Logger,
  ) {}

  async start(refreshMs: number): Promise<void> {
    await this.load();
    this.timer = setInterval(() => {
      this.load().catch((error) => this.logger.warn({ err: error }, 'reading trace settings failed'));
    }, refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  isEnabled(entity: string, project: string): boolean {
    return !this.disabled.has(`${entity}/${project}`);
  }

  async set(entity: string, project: string, enabled: boolean): Promise<boolean> {
    await this.db
      .insertInto('project_settings')
      .values({ entity, project, trace_completions: enabled })
      .onConflict((conflict) => conflict.columns(['entity', 'project']).doUpdateSet({ trace_completions: enabled, updated_at: new Date() }))
      .execute();
    await this.load();
    return enabled;
  }

  private async load(): Promise<void> {
    const rows = await this.db.selectFrom('project_settings').select(['entity', 'project']).where('trace_completions', '=', false).execute();
    this.disabled = new Set(rows.map((row) => `${row.entity}/${row.project}`));
  }
}
