import type { Kysely } from 'kysely';
import { writeBatchIsolating } from '../../../platform/db/poisoned-records.js';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import type { InferenceDatabase } from '../db/database.js';
import type { CompletionTrace, CompletionTraceSink } from '../tracing/completion-trace.js';
import { usageStore, type UsageRecord } from './usage.store.js';

const BATCH_SIZE = 500;
/**
 * Traced completions carry their messages and output: serializing 500 of them for one insert held the event loop
 * (and every request in flight) for several milliseconds at a time; smaller batches let requests in between.
 */
const TRACE_BATCH_SIZE = 100;
/** Beyond this many unwritten records (database down for long) the oldest are dropped, loudly. */
const MAX_BUFFERED = 200_000;

/**
 * Usage records are written off the request's path: `record()` only appends to a buffer, which is written in
 * multi-row inserts every `flushMs` (or as soon as a batch is full). A write the database fails keeps its records for
 * the next flush; a record the database can never store is dead-lettered alone (platform/db/poisoned-records.ts),
 * so it cannot hold back the others. Stopping the platform flushes what is left, so a completed request's record
 * is not lost on shutdown.
 */
export class UsageRecorder implements BackgroundWorker {
  readonly name = 'inference-usage-recorder';
  private buffer: UsageRecord[] = [];
  private traces: CompletionTrace[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private fullBatchFlush: Promise<void> | undefined;
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
    if (this.buffer.length >= BATCH_SIZE) this.flushSoon();
  }

  /** Whether traced completions go anywhere (a sink is bound); when not, callers need not build them. */
  get tracing(): boolean {
    return this.traceSink !== undefined;
  }

  /** Completions recorded as Family A calls: handed to the sink in the same flushes, after the usage records. */
  recordTrace(trace: CompletionTrace): void {
    if (!this.traceSink) return;
    this.traces.push(trace);
    // A batch of traces is written as soon as it is full: they hold messages and outputs, which should not pile up
    // in memory (and survive garbage collections) for a whole flush interval under load.
    if (this.traces.length >= TRACE_BATCH_SIZE) this.flushSoon();
  }

  /** A flush for a full batch: one at a time (not one more queued per record that arrives while it runs). */
  private flushSoon(): void {
    if (this.fullBatchFlush) return;
    this.fullBatchFlush = this.flush().finally(() => {
      this.fullBatchFlush = undefined;
    });
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
      const retry = await writeBatchIsolating(batch, {
        writer: 'inference-usage',
        logger: this.logger,
        write: (records) => usageStore.insertMany(this.db, records),
        describe: (record) => ({ entity: record.entity, project: record.project, model: record.model, requestId: record.requestId }),
      });
      if (retry.length > 0) {
        this.buffer.unshift(...retry);
        if (this.buffer.length > MAX_BUFFERED) {
          const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
          this.logger.error({ dropped: dropped.length }, 'usage record buffer full: dropped the oldest records');
        }
        return;
      }
    }
    // Traces separately: a failing sink must never hold back usage records.
    const sink = this.traceSink;
    while (sink && this.traces.length > 0) {
      const batch = this.traces.splice(0, TRACE_BATCH_SIZE);
      const retry = await writeBatchIsolating(batch, {
        writer: 'inference-completion-traces',
        logger: this.logger,
        write: (traces) => sink(this.db, traces),
        describe: (trace) => ({ entity: trace.entity, project: trace.project, callId: trace.call.id }),
      });
      if (retry.length > 0) {
        this.traces.unshift(...retry);
        if (this.traces.length > MAX_BUFFERED) this.traces.splice(0, this.traces.length - MAX_BUFFERED);
        return;
      }
    }
  }
}
