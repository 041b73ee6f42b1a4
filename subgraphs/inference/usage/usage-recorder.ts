import type { Kysely } from 'kysely';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import type { InferenceDatabase } from '../db/database.js';
import type { CompletionTrace, CompletionTraceSink } from '../tracing/completion-trace.js';
import { usageStore, type UsageRecord } from './usage.store.js';

const BATCH_SIZE = 500;
/** Beyond this many unwritten records (database down for long) the oldest are dropped, loudly. */
const MAX_BUFFERED = 200_000;

/**
 * Usage records are written off the request's path: `record()` only appends to a buffer, which is written in
 * multi-row inserts every `flushMs` (or as soon as a batch is full). A failed write keeps its records for the next
 * flush; stopping the platform flushes what is left, so a completed request's record is not lost on shutdown.
 */
export class UsageRecorder implements BackgroundWorker {
  readonly name = 'inference-usage-recorder';
  private buffer: UsageRecord[] = [];
  private traces: CompletionTrace[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<InferenceDatabase>,
    private readonly logger: Logger,
    flushMs: number,
    private readonly traceSink?: CompletionTraceSink,
  ) {
    // Runs even when the platform starts without workers; `stop()` is the shutdown flush.
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(record: UsageRecord): void {
    this.buffer.push(record);
    if (this.buffer.length >= BATCH_SIZE) void this.flush();
  }

  /** Whether traced completions go anywhere (a sink is bound); when not, callers need not build them. */
  get tracing(): boolean {
    return this.traceSink !== undefined;
  }

  /** Completions recorded as Family A calls: handed to the sink in the same flushes, after the usage records. */
  recordTrace(trace: CompletionTrace): void {
    if (!this.traceSink) return;
    this.traces.push(trace);
  }

  get pending(): number {
    return this.buffer.length + this.traces.length;
  }

  /** Writes everything buffered so far; resolves when it is written (or has failed and been kept). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBuffered());
    return this.flushing;
  }

  start(): void {}

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (let attempt = 0; attempt < 3 && this.pending > 0; attempt++) await this.flush();
    if (this.pending > 0) this.logger.error({ lost: this.pending }, 'usage records or traces could not be written before shutdown');
  }

  private async writeBuffered(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH_SIZE);
      try {
        await usageStore.insertMany(this.db, batch);
      } catch (error) {
        this.buffer.unshift(...batch);
        if (this.buffer.length > MAX_BUFFERED) {
          const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
          this.logger.error({ dropped: dropped.length }, 'usage record buffer full: dropped the oldest records');
        }
        this.logger.warn({ err: error, pending: this.buffer.length }, 'writing usage records failed; will retry');
        return;
      }
    }
    // Traces separately: a failing sink must never hold back usage records.
    while (this.traceSink && this.traces.length > 0) {
      const batch = this.traces.splice(0, BATCH_SIZE);
      try {
        await this.db.transaction().execute((trx) => this.traceSink!(trx, batch));
      } catch (error) {
        this.traces.unshift(...batch);
        if (this.traces.length > MAX_BUFFERED) this.traces.splice(0, this.traces.length - MAX_BUFFERED);
        this.logger.warn({ err: error, pending: this.traces.length }, 'handing completion traces to the sink failed; will retry');
        return;
      }
    }
  }
}
