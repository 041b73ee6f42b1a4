import type { Kysely } from 'kysely';
import { uuidv7 } from '../../../platform/uuidv7.js';
import type { CompletedCallRecord } from '../../../platform/events/contracts.js';
import type { Attribution } from '../chat/attribution.js';
import type { ChatCompletionChunk, Usage } from '../chat/chat-completion.js';
import type { ChatCompletionRequest } from '../chat/chat-request.schema.js';

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
  /** User id of the caller (the call's wb_user_id). */
  authorId: string;
  call: CompletedCallRecord;
}

/**
 * Receives traced completions in batches, with the inference schema's connection; it writes a batch atomically
 * (publishCompletionEvents: one statement, so no transaction and its two round trips). Throwing keeps the batch for
 * the next flush.
 */
export type CompletionTraceSink = (db: Kysely<any>, traces: CompletionTrace[]) => Promise<void>;

export function opNameOf(model: string): string {
  return `inference.chat.completions/${model}`;
}

export interface CompletionOutcome {
  attribution: Attribution;
  author: string;
  authorId: string;
  request: ChatCompletionRequest;
  startedAt: Date;
  durationMs: number;
  usage: Usage | undefined;
  output: unknown;
  /** The error message answered, when the completion failed. */
  failure: string | undefined;
  stream: boolean;
  backend: string | null;
  requestId: string | null;
}

export function buildCompletionTrace(outcome: CompletionOutcome): CompletionTrace {
  const { model, messages, stream: _stream, stream_options: _options, ...parameters } = outcome.request;
  const usage = outcome.usage;
  return {
    entity: outcome.attribution.entity,
    project: outcome.attribution.project,
    author: outcome.author,
    authorId: outcome.authorId,
    call: {
      // Time-ordered ids, as Weave's clients make them: the calls' indexes on them grow at their right edge
      // instead of touching a random page per completion.
      id: uuidv7(),
      trace_id: uuidv7(),
      op_name: opNameOf(model),
      started_at: outcome.startedAt.toISOString(),
      ended_at: new Date(outcome.startedAt.getTime() + outcome.durationMs).toISOString(),
      inputs: { model, messages, ...Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== null && value !== undefined)) },
      output: outcome.failure === undefined ? (outcome.output ?? null) : null,
      summary: {
        usage: usage
          ? {
              [model]: {
                requests: 1,
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
                total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
              },
            }
          : {},
      },
      attributes: { trellis: { source: 'inference', stream: outcome.stream, backend: outcome.backend, request_id: outcome.requestId } },
      exception: outcome.failure ?? null,
    },
  };
}

/** The call's output: the choice, or every choice when several were asked for. */
export function outputOf(choices: unknown[]): unknown {
  return choices.length === 1 ? choices[0] : { choices };
}

/** Assembles the choices of a streamed completion from its chunks, for the call's output. */
export class StreamedOutput {
  private readonly choices = new Map<number, { index: number; message: { role: string; content: string }; finish_reason: string | null }>();

  add(chunk: ChatCompletionChunk): void {
    for (const choice of chunk.choices) {
      let assembled = this.choices.get(choice.index);
      if (!assembled) {
        assembled = { index: choice.index, message: { role: 'assistant', content: '' }, finish_reason: null };
        this.choices.set(choice.index, assembled);
      }
      const delta = choice.delta as { role?: unknown; content?: unknown };
      if (typeof delta.role === 'string') assembled.message.role = delta.role;
      if (typeof delta.content === 'string') assembled.message.content += delta.content;
      if (choice.finish_reason) assembled.finish_reason = choice.finish_reason;
    }
  }

  output(): unknown {
    return outputOf([...this.choices.values()].sort((a, b) => a.index - b.index));
  }
}
