import type { Kysely } from 'kysely';
import type { RetentionWorker } from '../../platform/db/retention-worker.js';
import type { NotificationListener, PlatformEventStream } from '../../platform/events/index.js';
import type { CallService } from './call/call.service.js';
import type { TracingDatabase } from './db/database.js';
import type { DatasetEvaluationService } from './dataset-evaluation/dataset-evaluation.service.js';
import type { DatasetService } from './dataset/dataset.service.js';
import type { EvaluationRunner } from './dataset-evaluation/evaluation-runner.js';
import type { EvaluationService } from './evaluation/evaluation.service.js';
import type { FeedbackService } from './feedback/feedback.service.js';
import type { EndedCallsPublisher } from './monitor/ended-calls-publisher.js';
import type { ModelJudge } from './monitor/llm-judge.js';
import type { MonitorService } from './monitor/monitor.service.js';
import type { MonitoredProjects } from './monitor/monitored-projects.js';
import type { ObjectService } from './object/object.service.js';
import type { TraceRetentionService } from './retention/trace-retention.service.js';
import type { ScoreService } from './score/score.service.js';
import type { TokenUsageService } from './usage/token-usage.service.js';

export interface TracingServices {
  calls: CallService;
  objects: ObjectService;
  feedback: FeedbackService;
  scores: ScoreService;
  /** Evaluation runs as dashboards read them (SDK and evaluation API), with summaries and comparisons. */
  evaluations: EvaluationService;
  /** Datasets built from traces (Weave Dataset objects). */
  datasets: DatasetService;
  /** Evaluations of dataset versions against several models, run by the platform (evaluateDataset). */
  datasetEvaluations: DatasetEvaluationService;
  /** Runs them in the background; finishes abandoned runs (a worker). */
  evaluationRunner: EvaluationRunner;
  /** Token totals of traces and time windows (summary.usage), for cost. */
  tokenUsage: TokenUsageService;
  /** Platform events this subgraph consumes (inference completions). */
  events: PlatformEventStream;
  /** The process's LISTEN connection (event stream, monitored projects). */
  listener: NotificationListener;
  /** Projects with an active monitor, in memory (what call ingestion asks). */
  monitoredProjects: MonitoredProjects;
  /** Publishes ended calls of monitored projects (call ingestion, recorded inference completions). */
  endedCalls: EndedCallsPublisher;
  /** Asks catalog models for LLM-judge monitors (absent without the platform graph). */
  judge: ModelJudge | undefined;
  /** Monitors (online evaluation) of projects. */
  monitors: MonitorService;
  db: Kysely<TracingDatabase>;
  /** How long each project's traces are kept (its setting, the platform default). */
  traceRetention: TraceRetentionService;
  /** Deletes the traces past their project's retention (a background worker). */
  traceRetentionWorker: RetentionWorker;
}
