import { randomUUID } from 'node:crypto';
import { BadRequestError, TrellisError } from '../../../../platform/errors.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../chat/chat-completion.js';
import type { ChatMessage } from '../../chat/chat-request.schema.js';
import type { BackendRequest, ChatBackend, EmbeddingsBackendRequest } from '../chat-backend.js';
import { base64Embedding, inputsOf, type EmbeddingsResponse } from '../../embeddings/embeddings.js';
import { ClientClosedError } from '../upstream-errors.js';
import { callbackStream } from '../../../../platform/async/callback-stream.js';
import type { EmbeddedAdapter, EmbeddedGenerateOptions, EmbeddedGeneration, EmbeddedModelRuntime, EmbeddedTokenEvent } from './embedded-runtime.js';

/** What the embedded runtime honours; anything else a request sets is refused with 400 naming it. */
const EMBEDDED_CAPABILITIES = new Set([
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'seed',
  'n',
  'logprobs',
  'top_logprobs',
  // Only recorded (usage records), as OpenAI does: it asks nothing of the model.
  'user',
  // OpenAI's developer-defined tags of a completion: they ask nothing of the model either, and are recorded in the
  // traced call's inputs (a monitor or a dataset reads e.g. `inputs.metadata.expected` there).
  'metadata',
]);

/**
 * The in-process model runtime as a ChatBackend: OpenAI requests become `generate()` calls, tokens become
 * chunks as the runtime produces them, and the runtime's request errors become 400s.
 */
export class EmbeddedBackend implements ChatBackend {
  readonly kind = 'embedded' as const;
  readonly capabilities: ReadonlySet<string> = EMBEDDED_CAPABILITIES;

  constructor(
    private readonly runtime: EmbeddedModelRuntime,
    private readonly root: string,
    /** A promoted training checkpoint's adapter over `root` (promoted-checkpoints.ts); absent for catalog models. */
    private readonly adapter?: EmbeddedAdapter,
  ) {}

  async complete(request: BackendRequest, signal: AbortSignal): Promise<ChatCompletion> {
    request.report.attempts++;
    request.report.deployment = 'embedded';
    const generation = await this.generate(request, signal);
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.body.model,
      choices: generation.choices.map((choice, index) => ({
        index,
        message: { role: 'assistant', content: choice.text },
        finish_reason: choice.finishReason,
        logprobs: choice.logprobs ?? null,
      })),
      usage: usageOf(generation),
    };
  }

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    request.report.attempts++;
    request.report.deployment = 'embedded';
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const chunk = (index: number, delta: Record<string, unknown>, finish: string | null, logprobs?: unknown): ChatCompletionChunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: request.body.model,
      choices: [{ index, delta, finish_reason: finish, ...(logprobs !== undefined ? { logprobs } : {}) }],
    });
    // Tokens arrive by callback on the worker's schedule; they are handed out as the consumer pulls.
    const started = new Set<number>();
    const tokens = callbackStream((emit: (token: EmbeddedTokenEvent) => void) => this.generate(request, signal, emit));
    let next = await tokens.next();
    for (; !next.done; next = await tokens.next()) {
      const token = next.value;
      if (!started.has(token.index)) {
        started.add(token.index);
        yield chunk(token.index, { role: 'assistant', content: '' }, null);
      }
      yield chunk(token.index, { content: token.text }, null);
    }
    const generation = next.value;
    for (const [index, choice] of generation.choices.entries()) {
      if (!started.has(index)) yield chunk(index, { role: 'assistant', content: choice.text }, null);
      yield chunk(index, {}, choice.finishReason, choice.logprobs);
    }
    yield { id, object: 'chat.completion.chunk', created, model: request.body.model, choices: [], usage: usageOf(generation) };
  }

  /** Embeddings from the model's own hidden states; it cannot truncate them, so `dimensions` must be their size. */
  async embed(request: EmbeddingsBackendRequest, signal: AbortSignal): Promise<EmbeddingsResponse> {
    request.report.attempts++;
    request.report.deployment = 'embedded';
    const body = request.body;
    if (!this.runtime.embed) throw new BadRequestError(`Model '${body.model}' does not serve embeddings`, { param: 'model' });
    let result;
    try {
      result = await this.runtime.embed(this.root, inputsOf(body.input), signal);
    } catch (error) {
      throw runtimeRequestError(error, signal, 'input');
    }
    const size = result.vectors[0]?.length ?? 0;
    if (body.dimensions !== undefined && body.dimensions !== size) {
      throw new BadRequestError(`Model '${body.model}' cannot truncate its embeddings: its vectors have ${size} dimensions (leave dimensions out)`, {
        param: 'dimensions',
      });
    }
    const base64 = body.encoding_format === 'base64';
    return {
      object: 'list',
      data: result.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? base64Embedding(vector) : vector })),
      model: body.model,
      usage: { prompt_tokens: result.usage.prompt_tokens, total_tokens: result.usage.prompt_tokens },
    };
  }

  async close(): Promise<void> {}

  private async generate(request: BackendRequest, signal: AbortSignal, onToken?: Parameters<EmbeddedModelRuntime['generate']>[2]) {
    const body = request.body;
    const stop = body.stop === null || body.stop === undefined ? undefined : Array.isArray(body.stop) ? body.stop : [body.stop];
    const options: EmbeddedGenerateOptions = {
      messages: body.messages.map(toPlainMessage),
      temperature: body.temperature ?? undefined,
      top_p: body.top_p ?? undefined,
      max_tokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      stop,
      seed: body.seed ?? undefined,
      n: body.n ?? undefined,
      logprobs: body.logprobs ?? undefined,
      top_logprobs: body.top_logprobs ?? undefined,
      ...(this.adapter ? { adapter: this.adapter } : {}),
      signal,
    };
    try {
      return await this.runtime.generate(this.root, options, onToken);
    } catch (error) {
      throw runtimeRequestError(error, signal, 'messages');
    }
  }
}

/** The runtime's request errors (bad input, beyond the context window) are the client's 400 at `param`. */
function runtimeRequestError(error: unknown, signal: AbortSignal, param: string): unknown {
  if (signal.aborted) return new ClientClosedError();
  if (error instanceof TrellisError) return error;
  const name = (error as Error)?.name ?? '';
  if (/InvalidRequest|ContextLength/.test(name)) return new BadRequestError((error as Error).message, { param });
  return error;
}

function toPlainMessage(message: ChatMessage, index: number): { role: string; content: string } {
  const content = message.content;
  if (content === undefined || content === null) return { role: message.role, content: '' };
  if (typeof content === 'string') return { role: message.role, content };
  const text: string[] = [];
  for (const part of content) {
    if (part.type !== 'text' || typeof (part as { text?: unknown }).text !== 'string') {
      throw new BadRequestError(`The embedded model accepts only text content (messages.${index}.content has a '${part.type}' part)`, {
        param: `messages.${index}.content`,
      });
    }
    text.push((part as unknown as { text: string }).text);
  }
  return { role: message.role, content: text.join('') };
}

function usageOf(generation: EmbeddedGeneration) {
  const { prompt_tokens, completion_tokens } = generation.usage;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}
