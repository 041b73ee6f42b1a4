import { INFERENCE_COMPLETIONS_EVENT, type CompletedCallRecord, type InferenceCompletionsPayload } from '../../../platform/events/contracts.js';
import { publishEvents } from '../../../platform/events/index.js';
import type { CompletionTrace, CompletionTraceSink } from './completion-trace.js';

/**
 * The platform's binding of completion traces: an `inference.completions` platform event per project and caller in
 * the batch, carrying their calls, the whole batch written with one statement (insert and NOTIFY). The tracing
 * subgraph consumes them and records the calls. Under load a batch is one project's completions by one caller, so
 * the outbox takes one row a flush instead of one a completion.
 */
export const publishCompletionEvents: CompletionTraceSink = async (db, traces) => {
  const groups = new Map<string, { first: CompletionTrace; calls: CompletedCallRecord[] }>();
  for (const trace of traces) {
    const key = JSON.stringify([trace.entity, trace.project, trace.author, trace.authorId]);
    const group = groups.get(key);
    if (group) group.calls.push(trace.call);
    else groups.set(key, { first: trace, calls: [trace.call] });
  }
  await publishEvents(
    db,
    [...groups.values()].map(({ first, calls }) => {
      const payload: InferenceCompletionsPayload = { author_id: first.authorId, calls };
      return {
        type: INFERENCE_COMPLETIONS_EVENT,
        entity: first.entity,
        project: first.project,
        author: first.author,
        payload: payload as unknown as Record<string, unknown>,
      };
    }),
  );
};
