import { randomUUID } from 'node:crypto';
import { isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { callbackStream } from '../../../platform/async/callback-stream.js';
import {
  ContextLengthExceededError,
  GenerationWorkerPool,
  InvalidRequestError,
  type AdapterBytes,
  type GenerationResult,
  type TokenListener,
  type WorkerGenerateRequest,
} from '../../../model-runtime/index.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from '../../inference/chat/chat-request.schema.js';
import type { TrainingStore } from '../store.js';
import { EMBEDDED_BASE_MODELS } from '../trainer/embedded-trainer.js';
import { parseCheckpointModelName } from './checkpoint-model-name.js';

type Role = 'system' | 'user' | 'assistant';

interface PreparedRequest {
  request: ChatCompletionRequest;
  generation: WorkerGenerateRequest;
}

/**
 * OpenAI chat completions against base models and trained checkpoints, served by the embedded runtime's worker
 * pool with the checkpoint's LoRA adapter (cached per checkpoint id in each worker). Logprobs are the raw
 * model's, the numbers the RL trainer compares against — so samples can be fed straight back as trajectories.
 */
export class CheckpointChatService {
  private pool: GenerationWorkerPool | undefined;

  constructor(
    private readonly store: TrainingStore,
    private readonly poolSize: number,
  ) {}

  async complete(principal: Principal, body: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const prepared = await this.prepare(principal, body);
    if (prepared.request.stream) {
      throw new BadRequestError('stream: true is served as server-sent events by POST /training/v1/chat/completions (GraphQL: trainingChatCompletionChunks)', { param: 'stream' });
    }
    const result = await this.generate(prepared, signal);
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: prepared.request.model,
      choices: result.choices.map((choice) => ({
        index: choice.index,
        message: { role: 'assistant', content: choice.text },
        finish_reason: choice.finishReason,
        logprobs: choice.logprobs ? { content: choice.logprobs } : null,
      })),
      usage: result.usage,
    };
  }

  /**
   * The streaming form (`stream: true`): OpenAI `chat.completion.chunk`s as tokens are generated — per choice a
   * first chunk with the role, one per piece of text, a last one with `finish_reason` (and, when asked, the
   * choice's `logprobs.content`, the same entries as the non-streaming response), then a usage chunk when
   * `stream_options.include_usage`. The request and model are checked before the stream starts, so their errors
   * are ordinary error responses.
   */
  async stream(principal: Principal, body: unknown, signal?: AbortSignal): Promise<AsyncIterable<Record<string, unknown>>> {
    const prepared = await this.prepare(principal, body);
    return this.chunks(prepared, signal);
  }

  private async *chunks(prepared: PreparedRequest, signal?: AbortSignal): AsyncGenerator<Record<string, unknown>> {
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const includeUsage = prepared.request.stream_options?.include_usage === true;
    const chunk = (choices: unknown[], usage?: unknown) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: prepared.request.model,
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    });
    // Tokens arrive by callback on the worker's schedule; they are handed out as the client reads.
    const started = new Set<number>();
    const tokens = callbackStream((emit: TokenListener) => this.generate(prepared, signal, emit));
    let next = await tokens.next();
    for (; !next.done; next = await tokens.next()) {
      const token = next.value;
      if (!started.has(token.choiceIndex)) {
        started.add(token.choiceIndex);
        yield chunk([{ index: token.choiceIndex, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]);
      }
      if (token.text !== '') yield chunk([{ index: token.choiceIndex, delta: { content: token.text }, finish_reason: null, logprobs: null }]);
    }
    const result = next.value;
    for (const choice of result.choices) {
      if (!started.has(choice.index)) {
        yield chunk([{ index: choice.index, delta: { role: 'assistant', content: choice.text }, finish_reason: null, logprobs: null }]);
      }
      yield chunk([{ index: choice.index, delta: {}, finish_reason: choice.finishReason, logprobs: choice.logprobs ? { content: choice.logprobs } : null }]);
    }
    if (includeUsage) yield chunk([], result.usage);
  }

  /** Validation, the model (base or checkpoint adapter) and the runtime's parameters: everything before generating. */
  private async prepare(principal: Principal, body: unknown): Promise<PreparedRequest> {
    const request = validateOrThrow(ChatCompletionRequestSchema, body);
    const { baseModel, adapter } = await this.resolveModel(principal, request.model);
    if (!EMBEDDED_BASE_MODELS[baseModel]) {
      throw new NotFoundError(`The model "${request.model}" does not exist (base models: ${Object.keys(EMBEDDED_BASE_MODELS).join(', ')})`, { param: 'model' });
    }
    const messages = request.messages.map((message, index) => ({ role: roleOf(message.role, index), content: textOf(message.content) }));
    const stop = request.stop == null ? undefined : Array.isArray(request.stop) ? request.stop : [request.stop];
    return {
      request,
      generation: {
        messages,
        adapter,
        temperature: request.temperature ?? 1,
        top_p: request.top_p ?? 1,
        max_tokens: request.max_completion_tokens ?? request.max_tokens ?? 256,
        ...(stop ? { stop } : {}),
        ...(request.seed != null ? { seed: request.seed } : {}),
        n: request.n ?? 1,
        logprobs: request.logprobs ?? false,
        ...(request.top_logprobs != null ? { top_logprobs: request.top_logprobs } : {}),
      },
    };
  }

  private async generate(prepared: PreparedRequest, signal: AbortSignal | undefined, onToken?: TokenListener): Promise<GenerationResult> {
    try {
      return await this.generationPool().generate({ ...prepared.generation, signal }, onToken);
    } catch (error) {
      if (error instanceof ContextLengthExceededError || error instanceof InvalidRequestError) {
        throw new BadRequestError((error as Error).message, { param: 'messages' });
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private generationPool(): GenerationWorkerPool {
    // Started on first use: processes that never serve checkpoints do not hold model threads.
    this.pool ??= new GenerationWorkerPool({ model: EMBEDDED_BASE_MODELS['trellis-tiny']!, size: this.poolSize });
    return this.pool;
  }

  private async resolveModel(principal: Principal, model: string): Promise<{ baseModel: string; adapter: AdapterBytes | null }> {
    const ref = parseCheckpointModelName(model);
    if (ref === null) return { baseModel: model, adapter: null };
    if ('invalidAlias' in ref) {
      throw new BadRequestError(`Unknown checkpoint alias "${ref.invalidAlias}" (use latest or step<N>)`, { param: 'model' });
    }
    if (!isTeamMember(principal, ref.entity)) throw new ForbiddenError(`You are not a member of entity "${ref.entity}"`);
    const trained = await this.store.modelByName(ref.entity, ref.project, ref.name);
    if (!trained) throw new NotFoundError(`The model "${model}" does not exist`, { param: 'model' });
    const checkpoint = await this.store.checkpointWithAdapter(trained.id, ref.step);
    if (!checkpoint) {
      // A model that has not trained yet serves its base model for `latest`, as the hosted service does at step 0.
      if (ref.step === 'latest') return { baseModel: trained.base_model, adapter: null };
      throw new NotFoundError(`The model "${model}" has no checkpoint at step ${ref.step}`, { param: 'model' });
    }
    if (!checkpoint.adapter_config || !checkpoint.adapter_weights) {
      throw new NotFoundError(`The checkpoint "${model}" has no adapter yet`, { param: 'model' });
    }
    return {
      baseModel: trained.base_model,
      adapter: { id: checkpoint.id, adapterConfigJson: checkpoint.adapter_config, safetensorsBytes: checkpoint.adapter_weights },
    };
  }
}

function roleOf(role: string, index: number): Role {
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user' || role === 'assistant') return role;
  throw new BadRequestError(`messages[${index}].role "${role}" is not supported by the embedded runtime`, { param: `messages.${index}.role` });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
  }
  return '';
}
