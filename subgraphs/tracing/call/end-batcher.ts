import type { Kysely } from 'kysely';
import { WriteCoalescer } from '../../../platform/async/write-coalescer.js';
import type { TracingDatabase } from '../db/database.js';
import type { EndedCallsPublisher } from '../monitor/ended-calls-publisher.js';
import { callKey, callStore, type CallEndRow } from './call.store.js';

interface AuthoredEnd {
  row: CallEndRow;
  /** Who wrote it (the user id an ended-calls event names as its author). */
  author: string;
}

/**
 * Single `/call/end` writes, coalesced (WriteCoalescer, as CallStartBatcher does for starts) into one statement per
 * flush. For a project with an active monitor the flush is a transaction that also publishes the flush's ended calls
 * as one `tracing.calls_ended` event per project and author (EndedCallsPublisher) — one event, one NOTIFY and one
 * commit for the whole flush, where each request used to pay a transaction, an event and a NOTIFY of its own (and the
 * monitors' consumer an event per call). A request is answered once its flush has committed, so a caller that was
 * answered has its end (and its event) stored.
 */
export class CallEndBatcher {
  private readonly coalescer = new WriteCoalescer<AuthoredEnd, void>((batch) => this.write(batch));

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly endedCalls: EndedCallsPublisher | undefined,
  ) {}

  /** Resolves once the end (and, for a monitored project, its event) is committed. */
  end(row: CallEndRow, author: string): Promise<void> {
    return this.coalescer.submit({ row, author });
  }

  private async write(batch: AuthoredEnd[]): Promise<void[]> {
    // One statement may not touch a row twice: of the ends of one call in a flush, the last queued is written (as
    // upsert_batch keeps a batch's last end). Concurrent requests have no order of their own to keep.
    const last = new Map<string, AuthoredEnd>();
    for (const end of batch) last.set(callKey(end.row.project_id, end.row.id), end);
    const rows = [...last.values()].map((end) => end.row);
    const monitored = this.endedCalls?.monitoredAmong(batch.map((end) => ({ ...end.row, author: end.author })));
    if (!monitored?.length) {
      await callStore.applyEnds(this.db, rows);
      return batch.map(() => undefined);
    }
    await this.db.transaction().execute(async (trx) => {
      await callStore.applyEnds(trx, rows);
      await this.endedCalls!.publishAuthored(trx, monitored);
    });
    return batch.map(() => undefined);
  }
}
