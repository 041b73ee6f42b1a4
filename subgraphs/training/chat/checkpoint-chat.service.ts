import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { BadRequestError, ForbiddenError, NotFoundError, TrellisError } from '../../../platform/errors.js';
import { DEFAULT_USAGE_PROJECT } from '../../../platform/model-access/limits.js';
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
import { parseCheckpointModelName, type CheckpointRef } from './checkpoint-model-name.js';
import type { ChatCaller, CompletionAccounting, CompletionExchange } from './completion-accounting.js';

type Role = 'system' | 'user' | 'assistant';

interface PreparedRequest {
  request: ChatCompletionRequest;
  generation: WorkerGenerateRequest;
}

/**
 * OpenAI chat completions against base models and trained checkpoints, served by the embedded runtime's worker
 * pool with the checkpoint's LoRA adapter (cached per checkpoint id in each worker). Logprobs are the raw
 * model's, the numbers the RL trainer compares against — so samples can be fed straight back as trajectories.
 * Like every path to a model, each request is admitted under the platform's per-key and per-project limits and
 * leaves one usage record in inference's accounting (CompletionAccounting).
 */
export class CheckpointChatService {
  private pool: GenerationWorkerPool | undefined;

  constructor(
    private readonly store: TrainingStore,
    private readonly poolSize: number,
    private readonly accounting: CompletionAccounting,
  ) {}

  async complete(caller: ChatCaller, body: unknown): Promise<Record<string, unknown>> {
    const exchange = this.accounting.open(caller, body, false);
    try {
      const request = validateOrThrow(ChatCompletionRequestSchema, body);
      if (request.stream) {
        throw new BadRequestError('stream: true is served as server-sent events by POST /training/v1/chat/completions (GraphQL: trainingChatCompletionChunks)', { param: 'stream' });
      }
      const prepared = await this.prepare(exchange, request);
      const result = await this.generate(prepared, caller.signal);
      exchange.usage = result.usage;
      this.accounting.finish(exchange);
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
    } catch (error) {
      this.accounting.finish(exchange, error);
      throw error;
    }
  }

  /**
   * The streaming form (`stream: true`): OpenAI `chat.completion.chunk`s as tokens are generated — per choice a
   * first chunk with the role, one per piece of text, a last one with `finish_reason` (and, when asked, the
   * choice's `logprobs.content`, the same entries as the non-streaming response), then a usage chunk when
   * `stream_options.include_usage`. The request, the limits and the model are checked before the stream starts,
   * so their errors are ordinary error responses.
   */
  async stream(caller: ChatCaller, body: unknown): Promise<AsyncIterable<Record<string, unknown>>> {
    const exchange = this.accounting.open(caller, body, true);
    try {
      const prepared = await this.prepare(exchange, validateOrThrow(ChatCompletionRequestSchema, body));
      return this.chunks(exchange, prepared, caller.signal);
    } catch (error) {
      this.accounting.finish(exchange, error);
      throw error;
    }
  }

  private async *chunks(exchange: CompletionExchange, prepared: PreparedRequest, signal?: AbortSignal): AsyncGenerator<Record<string, unknown>> {
    let outcome: { error?: unknown } | undefined;
    try {
      yield* this.generateChunks(exchange, prepared, signal);
      outcome = {};
    } catch (error) {
      outcome = { error };
      throw error;
    } finally {
      // Stopped before the end without an error: the client went away.
      this.accounting.finish(exchange, outcome ? outcome.error : new TrellisError(499, 'BAD_REQUEST', 'The client closed the request'));
    }
  }

  private async *generateChunks(exchange: CompletionExchange, prepared: PreparedRequest, signal?: AbortSignal): AsyncGenerator<Record<string, unknown>> {
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
    exchange.firstTokenMs = performance.now() - exchange.started;
    for (; !next.done; next = await tokens.next()) {
      const token = next.value;
      if (!started.has(token.choiceIndex)) {
        started.add(token.choiceIndex);
        yield chunk([{ index: token.choiceIndex, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]);
      }
      if (token.text !== '') yield chunk([{ index: token.choiceIndex, delta: { content: token.text }, finish_reason: null, logprobs: null }]);
    }
    const result = next.value;
    exchange.usage = result.usage;
    for (const choice of result.choices) {
      if (!started.has(choice.index)) {
        yield chunk([{ index: choice.index, delta: { role: 'assistant', content: choice.text }, finish_reason: null, logprobs: null }]);
      }
      yield chunk([{ index: choice.index, delta: {}, finish_reason: choice.finishReason, logprobs: choice.logprobs ? { content: choice.logprobs } : null }]);
    }
    if (includeUsage) yield chunk([], result.usage);
  }

  /**
   * Everything before generating: where the request is counted, admission under the limits, the model (base or
   * checkpoint adapter) and the runtime's parameters. Admission comes before the checkpoint is read, so a caller
   * over a limit costs no adapter load.
   */
  private async prepare(exchange: CompletionExchange, request: ChatCompletionRequest): Promise<PreparedRequest> {
    const ref = this.modelRef(exchange.caller.principal, request.model);
    await this.accounting.admit(exchange, ref === null ? { entity: exchange.caller.principal.defaultEntity, project: DEFAULT_USAGE_PROJECT } : { entity: ref.entity, project: ref.project });
    const { baseModel, adapter } = ref === null ? { baseModel: request.model, adapter: null } : await this.resolveCheckpoint(ref, request.model);
    assertBaseModel(baseModel, request.model);
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

  /**
   * What a completion naming `model` would be answered by, resolved exactly as `prepare` resolves it (same errors:
   * BAD_REQUEST for an unknown alias form, FORBIDDEN outside the entity, NOT_FOUND for a model, step or alias training
   * does not have) but without admission or generation: so a caller about to ask (evaluateDataset) checks the name
   * against training's own tables, which serve a checkpoint the moment its job succeeded.
   */
  async servedModel(principal: Principal, model: string): Promise<{ baseModel: string; checkpointStep: number | null }> {
    const ref = this.modelRef(principal, model);
    if (ref === null) return { baseModel: model, checkpointStep: null };
    const { baseModel, step } = await this.resolveCheckpoint(ref, model, { weights: false });
    assertBaseModel(baseModel, model);
    return { baseModel, checkpointStep: step };
  }

  /** The checkpoint a model name refers to (null for a base model, checked to be one), once the caller may use it. */
  private modelRef(principal: Principal, model: string): CheckpointRef | null {
    const ref = parseCheckpointModelName(model);
    if (ref !== null && 'invalidAlias' in ref) {
      throw new BadRequestError(`Unknown checkpoint alias "${ref.invalidAlias}" (use latest, step<N> or a promoted alias)`, { param: 'model' });
    }
    if (ref === null) {
      assertBaseModel(model);
      return null;
    }
    if (!isTeamMember(principal, ref.entity)) throw new ForbiddenError(`You are not a member of entity "${ref.entity}"`);
    return ref;
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

  /**
   * The base model and adapter that serve the checkpoint, with the adapter's step (null: the base model alone).
   * `weights: false` checks the same and reads no adapter bytes (`adapter` is then null).
   */
  private async resolveCheckpoint(
    ref: CheckpointRef,
    model: string,
    { weights }: { weights: boolean } = { weights: true },
  ): Promise<{ baseModel: string; adapter: AdapterBytes | null; step: number | null }> {
    const trained = await this.store.modelByName(ref.entity, ref.project, ref.name);
    if (!trained) throw new NotFoundError(`The model "${model}" does not exist`, { param: 'model' });
    // Step 0 is the base model, before and after training: ART's get_step() is 0 for a new model, so its first
    // rollouts (and its integration test, after training) sample `…:step0`. Trained checkpoints start at step 1.
    if (ref.step === 0) return { baseModel: trained.base_model, adapter: null, step: null };
    const checkpoint = await this.store.checkpointWithAdapter(trained.id, ref.step, { weights });
    if (!checkpoint) {
      // A model that has not trained yet serves its base model for `latest`, as the hosted service does at step 0.
      if (ref.step === 'latest') return { baseModel: trained.base_model, adapter: null, step: null };
      if (typeof ref.step === 'object') throw new NotFoundError(`The model "${model}" has no checkpoint promoted to "${ref.step.alias}"`, { param: 'model' });
      throw new NotFoundError(`The model "${model}" has no checkpoint at step ${ref.step}`, { param: 'model' });
    }
    if (!checkpoint.has_adapter) throw new NotFoundError(`The checkpoint "${model}" has no adapter yet`, { param: 'model' });
    const adapter = weights ? { id: checkpoint.id, adapterConfigJson: checkpoint.adapter_config!, safetensorsBytes: checkpoint.adapter_weights! } : null;
    return { baseModel: trained.base_model, adapter, step: checkpoint.step };
  }
}

/** The embedded runtime serves only its own base models. */
function assertBaseModel(baseModel: string, requested = baseModel): void {
  if (!EMBEDDED_BASE_MODELS[baseModel]) {
    throw new NotFoundError(`The model "${requested}" does not exist (base models: ${Object.keys(EMBEDDED_BASE_MODELS).join(', ')})`, { param: 'model' });
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
