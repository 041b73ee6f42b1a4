import type { Kysely } from 'kysely';
import { WriteCoalescer } from '../../../platform/async/write-coalescer.js';
import type { TracingDatabase } from '../db/database.js';
import type { EndedCallsPublisher } from '../monitor/ended-calls-publisher.js';
import { callKey, callStore, type CallStartRow } from './call.store.js';

/**
 * Single `/call/start` writes, coalesced (WriteCoalescer) into one multi-row INSERT per flush — one statement, so one
 * transaction. A start whose call's end was written first completes the call: those of projects with an active
 * monitor are then published (EndedCallsPublisher), as the end would have been, by a second statement. Not in one
 * transaction with the insert: that cost every monitored flush two more round trips (bench/monitors: /call/start
 * 1.19x the plain project's CPU) for a case this rare, and a process killed between the two statements leaves those
 * calls to a backfill.
 */
export class CallStartBatcher {
  private readonly coalescer: WriteCoalescer<{ row: CallStartRow; author: string }, string>;

  constructor(db: Kysely<TracingDatabase>, endedCalls?: EndedCallsPublisher) {
    this.coalescer = new WriteCoalescer(async (submitted) => {
      // One statement may not touch a row twice: repeated ids in a flush share the first one's result.
      const unique = new Map<string, { row: CallStartRow; author: string }>();
      for (const start of submitted) {
        const key = callKey(start.row.project_id, start.row.id);
        if (!unique.has(key)) unique.set(key, start);
      }
      const starts = [...unique.values()].map((start) => start.row);
      const written = await callStore.insertStartsNotingEnds(db, starts);
      const completed = endedCalls?.monitoredAmong(written.ended.map((call) => ({ ...call, author: unique.get(callKey(call.project_id, call.id))!.author })));
      if (completed?.length) await endedCalls!.publishAuthored(db, completed);
      const traceIds = written.traceIds;
      return submitted.map((start) => traceIds.get(callKey(start.row.project_id, start.row.id))!);
    });
  }

  /** Resolves with the call's trace id once the row is committed; `author` is the writer (user id). */
  start(row: CallStartRow, author: string): Promise<string> {
    return this.coalescer.submit({ row, author });
  }
}
