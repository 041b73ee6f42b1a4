/**
 * Platform events that one subgraph publishes for another to consume: the name and payload of each, in one
 * place, so producer and consumer cannot drift apart. (Registry events that automations watch are described
 * in subgraphs/registry; these are the cross-family ones.)
 */

/** A chat completion served by Family B for a named project, to be recorded as a Family A call. */
export const INFERENCE_COMPLETION_EVENT = 'inference.completion';

export interface InferenceCompletionPayload {
  /** User id of the caller, recorded as the call's wb_user_id. */
  author_id: string;
  /** A completed Weave call (start and end fields together). */
  call: {
    id: string;
    trace_id: string;
    op_name: string;
    started_at: string;
    ended_at: string;
    inputs: Record<string, unknown>;
    output: unknown;
    summary: Record<string, unknown>;
    attributes: Record<string, unknown>;
    exception: string | null;
  };
}
