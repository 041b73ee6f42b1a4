import type { RetentionSchedule } from '../config.js';
import type { Logger } from '../logger.js';
import type { BackgroundWorker } from '../subgraph.js';

/**
 * One kind of deletion of a concern (one project's traces, one event type once consumed): deletes at most `limit`
 * units (rows, or traces for tracing) in one statement and resolves with how many it deleted. A batch that deleted
 * fewer than `limit` ends the pass.
 */
export type RetentionPass = (limit: number) => Promise<number>;

export interface SweepResult {
  /** Units deleted (rows, or traces). */
  deleted: number;
  /** Statements that deleted something or found nothing left: each deleted at most the batch size. */
  batches: number;
}

/**
 * The background deletion of one concern's old rows (traces of a subgraph, usage records, platform events), in
 * bounded batches with a pause between them, never one huge DELETE: a big backlog (the first sweep after retention
 * is switched on) then costs the database many short statements instead of one that locks and logs millions of rows.
 * Work for the whole platform: in a platform of several processes it runs in the first one only; the statements
 * themselves tolerate a second copy (another service replica), each batch locking the rows it deletes with SKIP
 * LOCKED where the passes say so.
 */
export class RetentionWorker implements BackgroundWorker {
  readonly onePerPlatform = true;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<SweepResult> | undefined;
  private stopping = false;
  private wakePause: (() => void) | undefined;

  constructor(
    readonly name: string,
    /** The passes of one sweep, decided afresh each time (settings and consumer positions change). */
    private readonly passes: () => Promise<RetentionPass[]>,
    private readonly schedule: RetentionSchedule,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopping = false;
    this.scheduleNext();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.wakePause?.();
    await this.sweeping?.catch(() => undefined);
  }

  /**
   * One whole sweep now: every pass in batches until a batch deletes less than the batch size. Concurrent calls
   * share the sweep in progress. Stops between batches when the worker stops.
   */
  sweep(): Promise<SweepResult> {
    this.sweeping ??= this.runPasses().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private scheduleNext(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.sweep()
        .then((result) => {
          if (result.deleted > 0) this.logger.info({ worker: this.name, ...result }, 'retention: deleted what is past its retention');
        })
        .catch((error) => this.logger.warn({ err: error, worker: this.name }, 'retention sweep failed; trying again at the next interval'))
        .finally(() => this.scheduleNext());
    }, this.schedule.intervalMs);
    this.timer.unref();
  }

  private async runPasses(): Promise<SweepResult> {
    const result: SweepResult = { deleted: 0, batches: 0 };
    const { batchSize } = this.schedule;
    for (const pass of await this.passes()) {
      for (;;) {
        if (this.stopping) return result;
        const deleted = await pass(batchSize);
        result.deleted += deleted;
        result.batches += 1;
        if (deleted < batchSize) break;
        await this.pause();
      }
    }
    return result;
  }

  private pause(): Promise<void> {
    if (this.schedule.pauseMs <= 0 || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.schedule.pauseMs);
      // stop() ends a pause at once rather than after it.
      this.wakePause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** The instant before which rows older than `days` days are past their retention. */
export function retentionCutoff(days: number, now = new Date()): Date {
  return new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
}
