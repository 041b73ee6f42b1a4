import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../../platform/errors.js';
import { uuidv7 } from '../../../platform/uuidv7.js';
import type { TracingDatabase } from '../db/database.js';
import type { ModelJudge } from './llm-judge.js';
import { backfillMonitor, type BackfillResult } from './monitor-backfill.js';
import { monitorOf, type MonitorDefinition } from './monitor-definition.js';
import { validateMonitor } from './monitor-validation.js';
import type { MonitorBody } from './monitor.schemas.js';
import { monitorStore, type MonitorStatsRow, type NewMonitorRow } from './monitor.store.js';
import { MonitoredProjects } from './monitored-projects.js';

/** A monitor with what it has done so far. */
export interface MonitorWithStats extends MonitorDefinition {
  stats: Omit<MonitorStatsRow, 'monitor_id'>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A monitor id that is not a uuid names no monitor (rather than failing the statement). */
function assertMonitorId(id: string): void {
  if (!UUID.test(id)) throw new NotFoundError(`Monitor ${id} not found in this project`);
}

const NO_RESULTS = { scored: 0, skipped: 0, failed: 0, mean_latency_ms: null, mean_score: null, prompt_tokens: 0, completion_tokens: 0 };

/**
 * Monitors of a project: defined, changed, paused, resumed and deleted by its admins (the resolver checks), listed
 * with their counts. Every change notifies the processes' MonitoredProjects in its transaction, and this process's is
 * reloaded before the change is answered, so calls ended here after the answer reach the monitor.
 */
export class MonitorService {
  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly monitored: MonitoredProjects,
    private readonly judge: ModelJudge | undefined,
  ) {}

  async create(userId: string, projectId: string, body: unknown): Promise<MonitorDefinition> {
    const valid = validateMonitor(body);
    const row: NewMonitorRow = { id: uuidv7(), project_id: projectId, created_by: userId, ...columnsOf(valid) };
    return this.change(async (trx) => monitorStore.insert(trx, row), valid.name);
  }

  /** Replaces the monitor's definition (its results and feedback so far stay). */
  async update(projectId: string, id: string, body: unknown): Promise<MonitorDefinition> {
    const valid = validateMonitor(body);
    return this.change(async (trx) => monitorStore.update(trx, projectId, id, columnsOf(valid)), valid.name, id);
  }

  setActive(projectId: string, id: string, active: boolean): Promise<MonitorDefinition> {
    return this.change(async (trx) => monitorStore.update(trx, projectId, id, { active }), undefined, id);
  }

  /** Deletes the monitor and its results; the feedback it wrote stays (it is the calls' history). */
  async delete(projectId: string, id: string): Promise<boolean> {
    if (!UUID.test(id)) return false;
    const deleted = await this.db.transaction().execute(async (trx) => {
      const gone = await monitorStore.delete(trx, projectId, id);
      if (gone) await MonitoredProjects.notifyChanged(trx);
      return gone;
    });
    if (deleted) await this.monitored.reload();
    return deleted;
  }

  /** Scores the project's ended calls started in [from, to) that the monitor has not looked at yet (monitor-backfill.ts). */
  backfill(projectId: string, id: string, from: Date, to: Date): Promise<BackfillResult> {
    assertMonitorId(id);
    return backfillMonitor(this.db, this.judge, projectId, id, from, to);
  }

  async list(projectId: string): Promise<MonitorWithStats[]> {
    const monitors = (await monitorStore.list(this.db, projectId)).map(monitorOf);
    const stats = new Map((await monitorStore.stats(this.db, monitors.map((monitor) => monitor.id))).map((row) => [row.monitor_id, row]));
    return monitors.map((monitor) => ({ ...monitor, stats: stats.get(monitor.id) ?? NO_RESULTS }));
  }

  private async change(
    write: (trx: Kysely<TracingDatabase>) => Promise<Parameters<typeof monitorOf>[0] | undefined>,
    name: string | undefined,
    id?: string,
  ): Promise<MonitorDefinition> {
    if (id !== undefined) assertMonitorId(id);
    let row;
    try {
      row = await this.db.transaction().execute(async (trx) => {
        const written = await write(trx);
        if (written) await MonitoredProjects.notifyChanged(trx);
        return written;
      });
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new ConflictError(`The project already has a monitor named "${name}"`);
      throw error;
    }
    if (!row) throw new NotFoundError(`Monitor ${id} not found in this project`);
    await this.monitored.reload();
    return monitorOf(row);
  }
}

function columnsOf(body: MonitorBody): Omit<NewMonitorRow, 'id' | 'project_id' | 'created_by'> {
  return {
    name: body.name,
    op_names: body.filter?.op_names ?? [],
    attributes: body.filter?.attributes ?? {},
    roots_only: body.filter?.roots_only ?? false,
    sampling_rate: body.sampling_rate,
    scorer: body.scorer,
    active: body.active ?? true,
    threshold: body.threshold ?? null,
  };
}
