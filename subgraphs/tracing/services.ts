import type { Kysely } from 'kysely';
import type { PlatformEventStream } from '../../platform/events/index.js';
import type { CallService } from './call/call.service.js';
import type { TracingDatabase } from './db/database.js';
import type { EvaluationService } from './evaluation/evaluation.service.js';
import type { FeedbackService } from './feedback/feedback.service.js';
import type { ObjectService } from './object/object.service.js';
import type { ScoreService } from './score/score.service.js';

export interface TracingServices {
  calls: CallService;
  objects: ObjectService;
  feedback: FeedbackService;
  scores: ScoreService;
  /** Evaluation runs as dashboards read them (SDK and evaluation API), with summaries and comparisons. */
  evaluations: EvaluationService;
  /** Platform events this subgraph consumes (inference completions). */
  events: PlatformEventStream;
  db: Kysely<TracingDatabase>;
}
