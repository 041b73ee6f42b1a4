import type { Kysely, Transaction } from 'kysely';
import { uuidv7 } from 'uuidv7';
import type { TracingDatabase } from '../db/database.js';
import { feedbackRowOf, PRIMARY_RATING } from '../feedback/feedback.service.js';
import type { FeedbackRow } from '../feedback/feedback.store.js';
import { callRef } from '../refs.js';
import { compileCheck, type ScoreOutcome } from './built-in-checks.js';
import { isSampled, matchesFilter } from './call-selection.js';
import { isTransientJudgeError, judgeScale, parseJudgeAnswer, renderPrompt, type ModelJudge } from './llm-judge.js';
import { monitorFeedbackType, monitorRef, type MonitorDefinition } from './monitor-definition.js';
import type { MonitoredCall } from './monitored-call.js';
import { monitorStore, resultKey, type MonitorResultRow } from './monitor.store.js';

/** Scoring yields the event loop after this many (monitor, call) pairs. */
const YIELD_EVERY = 250;

/** How many (monitor, call) pairs one pass recorded, by outcome (pairs already recorded before are not counted). */
export interface ScoringCounts {
  scored: number;
  skipped: number;
  failed: number;
}

/** What a monitor made of a call, ready to record: the result, and the id its score's feedback gets when it scored. */
export interface ScoredPair {
  /** The call's project (a call id is unique within its project only). */
  projectId: string;
  result: MonitorResultRow;
  feedbackId: string | null;
}

/**
 * Scoring, outside any transaction (an LLM judge takes a model's time): for each monitor, the calls of its project
 * that its filter keeps and that it has not looked at before are sampled (a hash of the pair under the rate) and the
 * sampled ones scored. A judge that cannot be reached now (UNAVAILABLE, rate limited) throws, so the caller retries
 * later rather than recording a failure that was not the call's.
 */
export async function scoreCalls(
  db: Kysely<TracingDatabase>,
  monitors: MonitorDefinition[],
  calls: MonitoredCall[],
  judge: ModelJudge | undefined,
): Promise<ScoredPair[]> {
  const recorded = await monitorStore.recordedPairs(
    db,
    monitors.map((monitor) => monitor.id),
    calls.map((call) => call.id),
  );
  const callsByProject = new Map<string, MonitoredCall[]>();
  for (const call of calls) {
    let own = callsByProject.get(call.project_id);
    if (!own) callsByProject.set(call.project_id, (own = []));
    own.push(call);
  }
  const pairs: ScoredPair[] = [];
  let sinceYield = 0;
  for (const monitor of monitors) {
    for (const call of callsByProject.get(monitor.projectId) ?? []) {
      // A batch can hold thousands of calls, scored on the event loop of a process that also serves requests: they
      // get the loop back every few hundred calls.
      if (++sinceYield === YIELD_EVERY) {
        sinceYield = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (!matchesFilter(monitor.filter, call) || recorded.has(resultKey(monitor.id, call.id))) continue;
      const base = { monitor_id: monitor.id, call_id: call.id, prompt_tokens: null, completion_tokens: null };
      if (!isSampled(monitor.id, call.id, monitor.samplingRate)) {
        pairs.push({ projectId: monitor.projectId, result: { ...base, outcome: 'skipped', score: null, reason: null, latency_ms: null }, feedbackId: null });
        continue;
      }
      const started = performance.now();
      const { outcome, tokens } = await runScorer(monitor, call, judge);
      const latency = performance.now() - started;
      const counted = { ...base, ...tokens, latency_ms: latency };
      if ('failed' in outcome) pairs.push({ projectId: monitor.projectId, result: { ...counted, outcome: 'failed', score: null, reason: outcome.failed }, feedbackId: null });
      else pairs.push({ projectId: monitor.projectId, result: { ...counted, outcome: 'scored', score: outcome.score, reason: outcome.reason }, feedbackId: uuidv7() });
    }
  }
  return pairs;
}

/**
 * Records scored pairs in the caller's transaction: the results and, for the results that went in, the score
 * feedback — a pair recorded meanwhile (another process, a redelivered event, an overlapping backfill) is left as it
 * was (monitor_results' primary key), so a call is scored once per monitor whatever runs twice.
 */
export async function recordScores(trx: Transaction<TracingDatabase>, monitors: MonitorDefinition[], pairs: ScoredPair[]): Promise<ScoringCounts> {
  const scoring = new Set(pairs.filter((pair) => pair.feedbackId !== null).map((pair) => pair.result.monitor_id));
  return monitorStore.recordResults(
    trx,
    pairs.map((pair) => ({ ...pair.result, feedback_id: pair.feedbackId })),
    monitors.filter((monitor) => scoring.has(monitor.id)).map((monitor) => ({ scoring_monitor: monitor.id, columns: scoreFeedbackColumns(monitor) })),
  );
}

type Tokens = { prompt_tokens: number | null; completion_tokens: number | null };

/** A built-in check, or the judge. A check that throws fails that call only. */
async function runScorer(monitor: MonitorDefinition, call: MonitoredCall, judge: ModelJudge | undefined): Promise<{ outcome: ScoreOutcome; tokens: Tokens }> {
  const none: Tokens = { prompt_tokens: null, completion_tokens: null };
  if (monitor.scorer.kind !== 'llm_judge') {
    try {
      return { outcome: compileCheck(monitor.scorer)(call), tokens: none };
    } catch (error) {
      return { outcome: { failed: `the check failed: ${(error as Error).message}` }, tokens: none };
    }
  }
  if (!judge) return { outcome: { failed: 'no model can be asked in this process (the platform graph is absent)' }, tokens: none };
  try {
    const answer = await judge.ask(monitor, renderPrompt(monitor.scorer.prompt ?? '', call));
    return {
      outcome: parseJudgeAnswer(answer.text, judgeScale(monitor.scorer)),
      tokens: { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens },
    };
  } catch (error) {
    if (isTransientJudgeError(error)) throw error;
    return { outcome: { failed: `the judge failed: ${(error as Error).message}` }, tokens: none };
  }
}

/**
 * The score as Weave records a scorer's output: feedback of type `wandb.runnable.<monitor>` on the call, payload
 * `{output, reason}`, the monitor as runnable_ref and trigger_ref, and the score as the primary rating (what the
 * feedback aggregate and the Evaluations page average per scorer), written as the monitor's creator's.
 *
 * What is built here is the row every score of this monitor in one recording shares (feedbackRowOf derives the
 * scorer, monitor, span type and rating names as for any feedback): recordResults gives each scored call its own id,
 * `weave_ref` (this row's call-ref prefix followed by the call id), payload and rating in SQL. A row per scored call
 * built here and sent as JSON cost more than the call's own ingestion (docs/benchmarks-history.md, issue #31).
 */
function scoreFeedbackColumns(monitor: MonitorDefinition): FeedbackRow {
  const ref = monitorRef(monitor);
  return feedbackRowOf(monitor.createdBy, {
    project_id: monitor.projectId,
    weave_ref: callRef(monitor.projectId, ''),
    feedback_type: monitorFeedbackType(monitor.name),
    payload: {},
    runnable_ref: ref,
    trigger_ref: ref,
    scorer_ratings: { [PRIMARY_RATING]: 0 },
  });
}
