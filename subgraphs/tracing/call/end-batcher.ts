import type { Kysely } from 'kysely';
import type { TracingDatabase } from '../db/database.js';
import type { EndedCallsPublisher } from '../monitor/ended-calls-publisher.js';
import { callKey, callStore, type CallEndRow } from './call.store.js';

interface Pending {
  row: CallEndRow;
  /** Who wrote it (the user id an ended-calls event names as its author). */
  author: string;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Coalesces concurrent single `/call/end` writes into one statement per flush, as CallStartBatcher does for starts:
 * under load, 64 clients cost a handful of round trips instead of 64. For a project with an active monitor the flush
 * is a transaction that also publishes the flush's ended calls as one `tracing.calls_ended` event per project and
 * author (EndedCallsPublisher) — one event, one NOTIFY and one commit for the whole flush, where each request used to
 * pay a transaction, an event and a NOTIFY of its own (and the monitors' consumer an event per call). A request is
 * answered once its flush has committed, so a caller that was answered has its end (and its event) stored. When a
 * flush fails, its rows are retried one by one so that one bad row fails only its caller.
 */
export class CallEndBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly endedCalls: EndedCallsPublisher | undefined,
    private readonly options: { maxBatch: number; maxInFlight: number } = { maxBatch: 500, maxInFlight: 4 },
  ) {}

  /** Resolves once the end (and, for a monitored project, its event) is committed. */
  end(row: CallEndRow, author: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ row, author, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.inFlight++;
    try {
      await this.settle(batch);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  private async settle(batch: Pending[]): Promise<void> {
    try {
      await this.write(batch);
      for (const pending of batch) pending.resolve();
    } catch {
      for (const pending of batch) {
        try {
          await this.write([pending]);
          pending.resolve();
        } catch (error) {
          pending.reject(error);
        }
      }
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    // One statement may not touch a row twice: of the ends of one call in a flush, the last queued is written (as
    // upsert_batch keeps a batch's last end). Concurrent requests have no order of their own to keep.
    const last = new Map<string, Pending>();
    for (const pending of batch) last.set(callKey(pending.row.project_id, pending.row.id), pending);
    const rows = [...last.values()].map((pending) => pending.row);
    const monitored = this.endedCalls?.monitoredAmong(batch.map((pending) => ({ ...pending.row, author: pending.author })));
    if (!monitored?.length) return callStore.applyEnds(this.db, rows);
    await this.db.transaction().execute(async (trx) => {
      await callStore.applyEnds(trx, rows);
      await this.endedCalls!.publishAuthored(trx, monitored);
    });
  }
}
