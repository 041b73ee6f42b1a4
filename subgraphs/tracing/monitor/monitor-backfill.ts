import type { Kysely } from 'kysely';
import { NotFoundError, ValidationFailedError } from '../../../platform/errors.js';
import type { TracingDatabase } from '../db/database.js';
import { monitorOf } from './monitor-definition.js';
import type { ModelJudge } from './llm-judge.js';
import { recordScores, scoreCalls, type ScoringCounts } from './monitor-scoring.js';
import { checkThresholds } from './monitor-threshold.js';
import { fieldsRead } from './monitor-fields.js';
import { monitorStore } from './monitor.store.js';

/** Calls read and scored per transaction: a page holds its calls' inputs and outputs in memory. */
const BACKFILL_PAGE = 500;
/** Calls one backfill request walks at most; the answer says where to resume (requests have time limits). */
export const BACKFILL_MAX_CALLS = 20_000;

export interface BackfillResult extends ScoringCounts {
  /** Ended calls of the window walked (each looked at, whether or not the filter kept it). */
  calls: number;
  /** Null when the whole window was walked; else the start time to pass as `from` to go on. */
  resumeFrom: Date | null;
}

/**
 * Applies a monitor to the project's ended calls started in [from, to) — whether or not it is paused — page by
 * page, each page scored and then recorded in a transaction of its own through the same once-only path as new calls
 * (scoreCalls, recordScores): calls
 * the monitor already looked at are left as they were, so a backfill can be repeated or overlap the live scoring.
 * Stops after BACKFILL_MAX_CALLS calls and says where to resume.
 */
export async function backfillMonitor(db: Kysely<TracingDatabase>, judge: ModelJudge | undefined, projectId: string, id: string, from: Date, to: Date): Promise<BackfillResult> {
  if (!(from.getTime() < to.getTime())) {
    throw new ValidationFailedError([{ loc: ['to'], msg: '`to` must be after `from`', type: 'value_error' }], '`to` must be after `from`');
  }
  const row = await monitorStore.get(db, projectId, id);
  if (!row) throw new NotFoundError(`Monitor ${id} not found in this project`);
  const monitor = monitorOf(row);
  const fields = fieldsRead([monitor]);
  const result: BackfillResult = { calls: 0, scored: 0, skipped: 0, failed: 0, resumeFrom: null };
  let after: { startedAt: Date; id: string } | null = null;
  while (result.calls < BACKFILL_MAX_CALLS) {
    const page = await monitorStore.endedCallsStartedIn(db, projectId, { from, to }, after, Math.min(BACKFILL_PAGE, BACKFILL_MAX_CALLS - result.calls), fields);
    if (page.length === 0) return result;
    const pairs = await scoreCalls(db, [monitor], page, judge);
    const counts = await db.transaction().execute(async (trx) => {
      const recorded = await recordScores(trx, [monitor], pairs);
      await checkThresholds(trx, [monitor]);
      return recorded;
    });
    result.calls += page.length;
    result.scored += counts.scored;
    result.skipped += counts.skipped;
    result.failed += counts.failed;
    const last = page.at(-1)!;
    after = { startedAt: last.started_at, id: last.id };
  }
  // Whether anything is left: the next call after the last one walked.
  const more = await monitorStore.endedCallsStartedIn(db, projectId, { from, to }, after, 1, []);
  result.resumeFrom = more.length > 0 ? more[0]!.started_at : null;
  return result;
}
