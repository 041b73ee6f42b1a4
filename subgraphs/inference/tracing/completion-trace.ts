import type { Kysely } from 'kysely';

/**
 * A chat completion as a Family A call, so it shows up next to the user's own traces. The inference subgraph
 * never writes tracing's tables: it hands these to a `CompletionTraceSink`, which the platform binds to its event
 * outbox (an `inference.completion` platform event that the tracing subgraph turns into a call).
 */
export interface CompletionTrace {
  entity: string;
  project: string;
  /** Username of the caller. */
  author: string;
  call: {
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
  };
}

/**
 * Receives traced completions in batches, in a transaction of the inference schema's connection (so an outbox
 * insert commits atomically with nothing else half-done). Throwing keeps the batch for the next flush.
 */
export type CompletionTraceSink = (db: Kysely<any>, traces: CompletionTrace[]) => Promise<void>;

export function opNameOf(model: string): string {
  return `inference.chat.completions/${model}`;
}
