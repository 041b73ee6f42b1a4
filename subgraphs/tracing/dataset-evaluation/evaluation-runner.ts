import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { TrellisError } from '../../../platform/errors.js';
import type { GraphCaller } from '../../../platform/graphql/platform-graph.js';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import type { Writer } from '../call/call.service.js';
import type { TracingDatabase } from '../db/database.js';
import { isTransientJudgeError } from '../monitor/llm-judge.js';
import type { MonitorScorer } from '../monitor/monitor.schemas.js';
import type { ScoreService } from '../score/score.service.js';
import { datasetEvaluationStore, type RunningRunKey } from './dataset-evaluation.store.js';
import type { CompletionSettings, EvaluatedModels, ModelAnswer, PromptMessage } from './evaluated-models.js';
import type { EvaluationExample } from './evaluation-rows.js';
import { scoreAnswer } from './evaluation-scoring.js';

/** The reason a run ends with when the caller who started it left the project's team while it ran. */
export function callerLeftReason(caller: GraphCaller, entity: string): string {
  return `Stopped: ${caller.principal.username}, who started this evaluation, is no longer a member of ${entity}; its models are asked only on a member's behalf`;
}

/** A scorer as a run records it: its name, its published object ref (the scores' `scorer`) and its definition. */
export interface PublishedScorer {
  name: string;
  ref: string;
  scorer: MonitorScorer;
}

/** Everything the runs of one evaluateDataset need, decided and checked before any of them starts. */
export interface EvaluationPlan {
  projectId: string;
  datasetRef: string;
  /** The rows' index range in the dataset version, [start, end). */
  rows: { start: number; end: number };
  runs: { runId: string; model: string }[];
  examples: EvaluationExample[];
  scorers: PublishedScorer[];
  settings: CompletionSettings;
}

export interface RunnerTiming {
  /** How often a process says its runs are still running. */
  heartbeatMs: number;
  /** How long without a heartbeat before a run counts as abandoned (its process died) and is finished as an error. */
  staleSeconds: number;
  /** How often the sweep for abandoned runs runs (also once at start). */
  sweepMs: number;
}

/** Heartbeats three times per stale period (a slow one is not taken for a death), sweeps twice per period. */
export function runnerTiming(staleSeconds: number): RunnerTiming {
  return { heartbeatMs: Math.min(5_000, (staleSeconds * 1000) / 3), staleSeconds, sweepMs: Math.min(15_000, (staleSeconds * 1000) / 2) };
}

/** The reason a run ends with when its process stops (graceful shutdown) before the run's last row. */
export const STOPPED_REASON = 'Interrupted: the platform process running this evaluation stopped before it finished; start the evaluation again';
/** The reason a run ends with when its process died (no heartbeat) before the run's last row. */
export const ABANDONED_REASON = 'Interrupted: the platform process running this evaluation died before it finished; start the evaluation again';

/** Tries of a graph operation that failed for the platform's sake (not the model's answer), 0.5 s, 1 s, 1.5 s apart. */
const PLATFORM_ATTEMPTS = 4;

class Interrupted extends Error {}
/** The caller who started the run is no longer a member of the project's team: the run stops acting for them. */
class CallerLeft extends Error {}

/**
 * Runs the evaluation runs of evaluateDataset in the background, one row after another per run (the runs of one
 * evaluation side by side), recording through the v2 evaluation API's service: each row is a prediction (a failed
 * completion is a failed prediction — a failed example, the run goes on), each scorer's outcome a score, and the
 * run is finished with a summary. Runs are not resumed after a restart: a process stopping finishes its runs as
 * errors (STOPPED_REASON) and a process that died is found by any process's sweep (no heartbeat for staleSeconds)
 * and its runs finished as errors (ABANDONED_REASON) — the caller's identity a run acts with is never stored, so a
 * run cannot be carried on by a process that did not receive the request.
 */
export class EvaluationRunner implements BackgroundWorker {
  readonly name = 'dataset-evaluations';
  private readonly owner = randomUUID();
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly scores: ScoreService,
    private readonly models: EvaluatedModels,
    private readonly logger: Logger,
    private readonly timing: RunnerTiming,
  ) {}

  async start(): Promise<void> {
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), this.timing.sweepMs);
    this.sweepTimer.unref();
  }

  /** Finishes the runs of processes that died (no heartbeat) as errors. */
  async sweep(): Promise<void> {
    try {
      const abandoned = await datasetEvaluationStore.takeStale(this.db, this.timing.staleSeconds);
      for (const run of abandoned) await datasetEvaluationStore.finishRun(this.db, run, { interrupted: true }, ABANDONED_REASON);
      if (abandoned.length > 0) this.logger.warn({ runs: abandoned.length }, 'finished abandoned evaluation runs as errors');
    } catch (error) {
      this.logger.warn({ err: error }, 'sweep for abandoned evaluation runs failed; retried at the next sweep');
    }
  }

  /** UNAVAILABLE while this process stops: what would be started now could not run. */
  assertAccepting(): void {
    if (this.stopping) throw new TrellisError(503, 'UNAVAILABLE', 'This platform process is stopping; start the evaluation again', { retryAfterSeconds: 2 });
  }

  /** Claims the plan's runs for this process and starts them; answers once they are claimed (not when they end). */
  async launch(plan: EvaluationPlan, caller: GraphCaller, writer: Writer): Promise<void> {
    this.assertAccepting();
    const keys = plan.runs.map((run) => ({ project_id: plan.projectId, run_id: run.runId }));
    await datasetEvaluationStore.claim(this.db, keys, this.owner);
    for (const run of plan.runs) {
      const abort = new AbortController();
      const key = `${plan.projectId}/${run.runId}`;
      const done = this.execute(plan, run, { ...caller, requestId: `evaluation-${run.runId}`, signal: abort.signal }, writer).finally(() => {
        this.inFlight.delete(key);
        if (this.inFlight.size === 0) this.stopHeartbeat();
      });
      this.inFlight.set(key, { abort, done });
    }
    this.startHeartbeat();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    const running = [...this.inFlight.values()];
    for (const run of running) run.abort.abort();
    await Promise.all(running.map((run) => run.done));
  }

  private async execute(plan: EvaluationPlan, run: { runId: string; model: string }, caller: GraphCaller, writer: Writer): Promise<void> {
    const key: RunningRunKey = { project_id: plan.projectId, run_id: run.runId };
    const counts = { examples: 0, failed_predictions: 0, failed_scores: 0, prompt_tokens: 0, completion_tokens: 0 };
    const summaryOf = () => ({ dataset: plan.datasetRef, rows: plan.rows, model: run.model, ...counts });
    try {
      const entity = plan.projectId.split('/')[0]!;
      for (const example of plan.examples) {
        if (caller.signal?.aborted || this.stopping) throw new Interrupted();
        // Rights are re-checked before every row (not only when the evaluation started): the models and judges are
        // asked as the caller, and a caller removed from the team meanwhile must not go on being acted for.
        if (!(await this.retrying(() => this.models.callerStillMember(entity, caller), caller))) throw new CallerLeft(callerLeftReason(caller, entity));
        await this.example(plan, run, example, caller, writer, counts);
      }
      await datasetEvaluationStore.finishRun(this.db, key, summaryOf(), null);
    } catch (error) {
      const reason =
        error instanceof CallerLeft ? error.message : error instanceof Interrupted || caller.signal?.aborted ? STOPPED_REASON : `The evaluation failed: ${(error as Error).message}`;
      if (!(error instanceof Interrupted) && !(error instanceof CallerLeft)) this.logger.warn({ err: error, runId: run.runId }, 'evaluation run failed');
      await datasetEvaluationStore.finishRun(this.db, key, summaryOf(), reason).catch((finishError) => this.logger.error({ err: finishError, runId: run.runId }, 'could not finish an evaluation run'));
    } finally {
      await datasetEvaluationStore.release(this.db, key).catch(() => undefined);
    }
  }

  /** One row: the model's answer as a prediction (or a failed prediction), then each scorer's score of it. */
  private async example(
    plan: EvaluationPlan,
    run: { runId: string; model: string },
    example: EvaluationExample,
    caller: GraphCaller,
    writer: Writer,
    counts: { examples: number; failed_predictions: number; failed_scores: number; prompt_tokens: number; completion_tokens: number },
  ): Promise<void> {
    const prediction = { model: run.model, inputs: example.row, evaluation_run_id: run.runId };
    let answer: ModelAnswer;
    try {
      answer = await this.retrying(() => this.models.ask(run.model, example.messages, plan.settings, caller), caller);
    } catch (error) {
      if (error instanceof Interrupted || caller.signal?.aborted) throw new Interrupted();
      counts.examples++;
      counts.failed_predictions++;
      await this.scores.createPrediction(writer, plan.projectId, { ...prediction, output: null }, `The model did not answer: ${(error as Error).message}`);
      return;
    }
    counts.examples++;
    counts.prompt_tokens += answer.promptTokens;
    counts.completion_tokens += answer.completionTokens;
    const predictionId = await this.scores.createPrediction(writer, plan.projectId, { ...prediction, output: answer.text });
    for (const scorer of plan.scorers) {
      const scored = { projectId: plan.projectId, predictionId, model: run.model, row: example.row, answer: answer.text };
      const judge = (model: string, messages: PromptMessage[], settings: CompletionSettings) => this.retrying(() => this.models.ask(model, messages, settings, caller), caller);
      const outcome = await scoreAnswer(scorer.scorer, scored, judge, plan.settings.seed);
      if ('failed' in outcome) {
        if (caller.signal?.aborted) throw new Interrupted();
        counts.failed_scores++;
        continue;
      }
      await this.scores.createScore(writer, plan.projectId, {
        prediction_id: predictionId,
        scorer: scorer.ref,
        value: { score: outcome.score, reason: outcome.reason },
        evaluation_run_id: run.runId,
      });
    }
  }

  /**
   * A graph operation for the run, tried again while it fails for the platform's sake rather than the model's: a busy
   * or briefly unreachable model (UNAVAILABLE, rate limited) or the graph itself failing (an error that is not a
   * family's answer, e.g. a subgraph service that cannot be reached). A run stopped meanwhile ends in Interrupted
   * rather than in a failed example (the platform stops its workers before its gateway). Anything else is thrown at
   * once.
   */
  private async retrying<T>(operation: () => Promise<T>, caller: GraphCaller): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await operation();
      } catch (error) {
        if (caller.signal?.aborted) throw new Interrupted();
        const platformFailure = isTransientJudgeError(error) || !(error instanceof TrellisError);
        if (attempt >= PLATFORM_ATTEMPTS || !platformFailure) throw error;
        await pause(500 * attempt, caller.signal);
        if (caller.signal?.aborted) throw new Interrupted();
      }
    }
  }

  private startHeartbeat(): void {
    if (this.heartbeatTimer) return;
    this.heartbeatTimer = setInterval(() => {
      datasetEvaluationStore.heartbeat(this.db, this.owner).catch((error) => this.logger.warn({ err: error }, 'evaluation heartbeat failed'));
    }, this.timing.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }
}

/** Waits `ms`, or less when the signal aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
