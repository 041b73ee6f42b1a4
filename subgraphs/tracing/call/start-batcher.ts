import type { Kysely } from 'kysely';
import { WriteCoalescer } from '../../../platform/async/write-coalescer.js';
import type { TracingDatabase } from '../db/database.js';
import { callKey, callStore, type CallStartRow } from './call.store.js';

/**
 * Single `/call/start` writes, coalesced (WriteCoalescer) into one multi-row INSERT per flush — one statement, so one
 * transaction.
 */
export class CallStartBatcher {
  private readonly coalescer: WriteCoalescer<CallStartRow, string>;

  constructor(db: Kysely<TracingDatabase>) {
    this.coalescer = new WriteCoalescer(async (rows) => {
      // One statement may not touch a row twice: repeated ids in a flush share the first one's result.
      const unique = new Map<string, CallStartRow>();
      for (const row of rows) {
        const key = callKey(row.project_id, row.id);
        if (!unique.has(key)) unique.set(key, row);
      }
      const traceIds = await callStore.insertStarts(db, [...unique.values()]);
      return rows.map((row) => traceIds.get(callKey(row.project_id, row.id))!);
    });
  }

  /** Resolves with the call's trace id once the row is committed. */
  start(row: CallStartRow): Promise<string> {
    return this.coalescer.submit(row);
  }
}
