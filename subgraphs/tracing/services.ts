import type { Kysely } from 'kysely';
import type { RetentionWorker } from '../../platform/db/retention-worker.js';
import type { PlatformEventStream } from '../../platform/events/index.js';
import type { CallService } from './call/call.service.js';
import type { TracingDatabase } from './db/database.js';
import type { EvaluationService } from './evaluation/evaluation.service.js';
import type { FeedbackService } from './feedback/feedback.service.js';
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
  /** Token totals of traces and time windows (summary.usage), for cost. */
  tokenUsage: TokenUsageService;
  /** Platform events this subgraph consumes (inference completions). */
  events: PlatformEventStream;
  db: Kysely<TracingDatabase>;
  /** How long each project's traces are kept (its setting, the platform default). */
  traceRetention: TraceRetentionService;
  /** Deletes the traces past their project's retention (a background worker). */
  traceRetentionWorker: RetentionWorker;
}
