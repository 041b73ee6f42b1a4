/**
 * Platform events that one subgraph publishes for another to consume: the name and payload of each, in one
 * place, so producer and consumer cannot drift apart. (Registry events that automations watch are described
 * in subgraphs/registry; these are the cross-family ones.)
 */

/** A chat completion served by Family B for a named project, to be recorded as a Family A call. */
export const INFERENCE_COMPLETION_EVENT = 'inference.completion';

/** A completed Weave call (start and end fields together). */
export interface CompletedCallRecord {
  id: string;
  trace_id: string;
  /** Names the model, e.g. `inference.chat.completions/llama-3-8b`. */
  op_name: string;
  started_at: string;
  ended_at: string;
  /** The request: messages and the parameters that were set. */
  inputs: Record<string, unknown>;
  /** The first choice (all choices under `choices` when n > 1); null when the request failed. */
  output: unknown;
  /** Weave's shape: usage keyed by model. */
  summary: { usage: Record<string, { requests: number; prompt_tokens: number; completion_tokens: number; total_tokens: number }> };
  attributes: Record<string, unknown>;
  exception: string | null;
}

export interface InferenceCompletionPayload {
  /** User id of the caller, recorded as the call's wb_user_id. */
  author_id: string;
  call: CompletedCallRecord;
}
