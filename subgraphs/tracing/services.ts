import type { CallService } from './call/call.service.js';
import type { FeedbackService } from './feedback/feedback.service.js';
import type { ObjectService } from './object/object.service.js';
import type { ScoreService } from './score/score.service.js';

export interface TracingServices {
  calls: CallService;
  objects: ObjectService;
  feedback: FeedbackService;
  scores: ScoreService;
}
