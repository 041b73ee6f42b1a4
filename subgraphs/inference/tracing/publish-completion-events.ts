import { INFERENCE_COMPLETION_EVENT, type InferenceCompletionPayload } from '../../../platform/events/contracts.js';
import { publishEvents } from '../../../platform/events/index.js';
import type { CompletionTraceSink } from './completion-trace.js';

/**
 * The platform's binding of completion traces: one `inference.completion` platform event per traced completion,
 * the whole batch written with one statement (insert and NOTIFY). The tracing subgraph consumes them and
 * records the calls.
 */
export const publishCompletionEvents: CompletionTraceSink = async (db, traces) => {
  await publishEvents(
    db,
    traces.map((trace) => {
      const payload: InferenceCompletionPayload = { author_id: trace.authorId, call: trace.call };
      return {
        type: INFERENCE_COMPLETION_EVENT,
        entity: trace.entity,
        project: trace.project,
        author: trace.author,
        payload: payload as unknown as Record<string, unknown>,
      };
    }),
  );
};
