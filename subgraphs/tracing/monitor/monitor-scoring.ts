import type { Transaction } from 'kysely';
import type { TracingDatabase } from '../db/database.js';
import { feedbackRowOf, PRIMARY_RATING } from '../feedback/feedback.service.js';
import type { FeedbackRow } from '../feedback/feedback.store.js';
import { feedbackStore } from '../feedback/feedback.store.js';
import { callRef } from '../refs.js';
import { compileCheck, type ScoreOutcome } from './built-in-checks.js';
import { isSampled, matchesFilter } from './call-selection.js';
import { monitorFeedbackType, monitorRef, type MonitorDefinition } from './monitor-definition.js';
import type { MonitoredCall } from './monitored-call.js';
import { monitorStore, resultKey, type MonitorResultRow } from './monitor.store.js';

/** How many (monitor, call) pairs one pass recorded, by outcome (pairs already recorded before are not counted). */
export interface ScoringCounts {
  scored: number;
  skipped: number;
  failed: number;
}

/**
 * Applies the monitors to the calls of their projects, in the caller's transaction: a call outside a monitor's
 * filter is left alone; one its sampling passes over is recorded as skipped; the others are scored and recorded,
 * with their score as feedback on the call. Results and feedback are written together and only for pairs not
 * recorded before (monitor_results' primary key), so running this twice over the same calls — a redelivered event,
 * a second process, a backfill over scored calls — changes nothing the second time.
 */
export async function applyMonitors(trx: Transaction<TracingDatabase>, monitors: MonitorDefinition[], calls: MonitoredCall[]): Promise<ScoringCounts> {
  const results: MonitorResultRow[] = [];
  const feedback = new Map<string, FeedbackRow>();
  for (const monitor of monitors) {
    for (const call of calls) {
      if (call.project_id !== monitor.projectId || !matchesFilter(monitor.filter, call)) continue;
      if (!isSampled(monitor.id, call.id, monitor.samplingRate)) {
        results.push({ monitor_id: monitor.id, call_id: call.id, outcome: 'skipped', score: null, reason: null, latency_ms: null });
        continue;
      }
      const started = performance.now();
      const outcome = runCheck(monitor, call);
      const latency = performance.now() - started;
      if ('failed' in outcome) {
        results.push({ monitor_id: monitor.id, call_id: call.id, outcome: 'failed', score: null, reason: outcome.failed, latency_ms: latency });
        continue;
      }
      results.push({ monitor_id: monitor.id, call_id: call.id, outcome: 'scored', score: outcome.score, reason: outcome.reason, latency_ms: latency });
      feedback.set(resultKey(monitor.id, call.id), scoreFeedback(monitor, call, outcome));
    }
  }
  const recorded = await monitorStore.insertResults(trx, results);
  await feedbackStore.insertMany(trx, [...feedback].filter(([key]) => recorded.has(key)).map(([, row]) => row));
  const counts: ScoringCounts = { scored: 0, skipped: 0, failed: 0 };
  for (const result of results) if (recorded.has(resultKey(result.monitor_id, result.call_id))) counts[result.outcome]++;
  return counts;
}

/** A check that throws (a bug, or a value it cannot read) fails that call only. */
function runCheck(monitor: MonitorDefinition, call: MonitoredCall): ScoreOutcome {
  try {
    return compileCheck(monitor.scorer)(call);
  } catch (error) {
    return { failed: `the check failed: ${(error as Error).message}` };
  }
}

/**
 * The score as Weave records a scorer's output: feedback of type `wandb.runnable.<monitor>` on the call, payload
 * `{output, reason}`, the monitor as runnable_ref and trigger_ref, and the score as the primary rating (what the
 * feedback aggregate and the Evaluations page average per scorer). Written as the monitor's creator's.
 */
function scoreFeedback(monitor: MonitorDefinition, call: MonitoredCall, outcome: { score: number; reason: string }): FeedbackRow {
  const ref = monitorRef(monitor);
  return feedbackRowOf(monitor.createdBy, {
    project_id: monitor.projectId,
    weave_ref: callRef(monitor.projectId, call.id),
    feedback_type: monitorFeedbackType(monitor.name),
    payload: { output: outcome.score, reason: outcome.reason },
    runnable_ref: ref,
    trigger_ref: ref,
    scorer_ratings: { [PRIMARY_RATING]: outcome.score },
  });
}
