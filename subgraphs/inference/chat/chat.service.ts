import { performance } from 'node:perf_hooks';
import type { Principal } from '../../../platform/auth/principal.js';
import { TrellisError } from '../../../platform/errors.js';
import { RequestAbortController } from '../../../platform/async/request-abort-controller.js';
import type { Logger } from '../../../platform/logger.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { BackendReport, BackendRequest, ChatBackend } from '../backends/chat-backend.js';
import { ClientClosedError } from '../backends/upstream-errors.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { parsePromotedCheckpointName } from '../checkpoints/promoted-checkpoint-name.js';
import type { PromotedCheckpoints } from '../checkpoints/promoted-checkpoints.js';
import type { Lease, ModelLimiter } from '../../../platform/model-access/request-limiter.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import { buildCompletionTrace, outputOf, StreamedOutput } from '../tracing/completion-trace.js';
import type { TraceSettings } from '../tracing/trace-settings.js';
import { attributionOf, DEFAULT_USAGE_PROJECT, type Attribution } from './attribution.js';
import { isUsage, type ChatCompletion, type ChatCompletionChunk, type Usage } from './chat-completion.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from './chat-request.schema.js';
import { assertParametersSupported } from './parameters.js';

export interface ChatCaller {
  principal: Principal;
  /** The Compat-Project / OpenAI-Project header, if sent. */
  project?: string | null;
  requestId?: string;
  /** Aborted when the client goes away: the upstream request is cancelled with it. */
  signal?: AbortSignal;
}

/**
 * Turns another OpenAI request form (the Responses API) into the chat request it asks for, throwing the 400 of
 * what cannot be one. Called where the chat body is validated, so its errors are accounted like chat's.
 */
export type ToChatRequest = (raw: unknown) => unknown;

/** Everything known about one request while it runs; becomes its usage record. */
interface Exchange {
  started: number;
  createdAt: Date;
  caller: ChatCaller;
  stream: boolean;
  model: string;
  attribution: Attribution;
  /** What serves the model: a catalog model's backend, or a promoted checkpoint's. */
  backend?: ChatBackend;
  lease?: Lease;
  report: BackendReport;
  usage?: Usage;
  firstTokenMs?: number;
  endUser?: string | null;
  /** Set when the completion is to be recorded as a Family A call. */
  trace?: {
    request: ChatCompletionRequest;
    output?: unknown;
    /** Streamed choices, assembled from the chunks. */
    streamed?: StreamedOutput;
  };
}

/**
 * For callers without a signal (GraphQL over HTTP): one that nobody aborts, made per request. Not one shared signal:
 * the upstream call adds and removes its listener on it, and a long-lived signal's listener list kept every finished
 * request reachable for V8's young-generation collector (the probes of subgraphs/inference/test).
 */
const neverAborted = (): AbortSignal => new RequestAbortController().signal;

/**
 * Chat completions: attribute the request to a project, validate it, resolve the model, check the backend can
 * honour every parameter, admit it under the limits, call the backend, and record usage for every outcome.
 */
export class ChatService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly limiter: ModelLimiter,
    private readonly usage: UsageRecorder,
    private readonly traceSettings: TraceSettings,
    private readonly logger: Logger,
    /** Training checkpoints by registry name (`{entity}/{project}/{model}:production`); absent: catalog models only. */
    private readonly checkpoints?: PromotedCheckpoints,
  ) {}

  async complete(raw: unknown, caller: ChatCaller, toChat?: ToChatRequest): Promise<ChatCompletion> {
    const exchange = this.open(raw, caller, false);
    const { request, backend } = await this.admit(exchange, raw, toChat);
    try {
      const completion = await backend.complete(backendRequest(request, exchange.report), caller.signal ?? neverAborted());
      if (isUsage(completion.usage)) exchange.usage = completion.usage;
      if (exchange.trace) exchange.trace.output = outputOf(completion.choices);
      this.finish(exchange);
      return completion;
    } catch (error) {
      this.finish(exchange, error);
      throw error;
    }
  }

  /**
   * Resolves once the backend produced its first chunk (so errors before it are ordinary errors with a status);
   * the stream then yields the rest. The usage chunk is passed on only when the client asked for it.
   */
  async stream(raw: unknown, caller: ChatCaller, toChat?: ToChatRequest): Promise<AsyncIterable<ChatCompletionChunk>> {
    const exchange = this.open(raw, caller, true);
    const { request, backend } = await this.admit(exchange, raw, toChat);
    const includeUsage = request.stream_options?.include_usage === true;
    let iterator: AsyncIterator<ChatCompletionChunk>;
    let first: IteratorResult<ChatCompletionChunk>;
    try {
      iterator = backend.stream(backendRequest(request, exchange.report), caller.signal ?? neverAborted())[Symbol.asyncIterator]();
      first = await iterator.next();
      exchange.firstTokenMs = performance.now() - exchange.started;
    } catch (error) {
      this.finish(exchange, error);
      throw error;
    }
    return this.relay(exchange, iterator, first, includeUsage);
  }

  private async *relay(
    exchange: Exchange,
    iterator: AsyncIterator<ChatCompletionChunk>,
    first: IteratorResult<ChatCompletionChunk>,
    includeUsage: boolean,
  ): AsyncGenerator<ChatCompletionChunk> {
    let outcome: { error?: unknown } | undefined;
    try {
      let next = first;
      while (!next.done) {
        let chunk = next.value;
        if (chunk.usage) {
          if (isUsage(chunk.usage)) exchange.usage = chunk.usage;
          if (!includeUsage) chunk = withoutUsage(chunk);
        }
        if (exchange.trace) (exchange.trace.streamed ??= new StreamedOutput()).add(chunk);
        if (includeUsage || chunk.choices.length > 0) yield chunk;
        next = await iterator.next();
      }
      outcome = {};
      if (exchange.trace?.streamed) exchange.trace.output = exchange.trace.streamed.output();
    } catch (error) {
      outcome = { error };
      throw error;
    } finally {
      if (!outcome) {
        // The consumer stopped early: the client disconnected. Release the upstream now.
        outcome = { error: new ClientClosedError() };
        void iterator.return?.();
      }
      this.finish(exchange, outcome.error);
    }
  }

  /** Starts the exchange; attribution errors are recorded against the caller's default project. */
  private open(raw: unknown, caller: ChatCaller, stream: boolean): Exchange {
    const exchange: Exchange = {
      started: performance.now(),
      createdAt: new Date(),
      caller,
      stream,
      model: modelOf(raw),
      attribution: { entity: caller.principal.defaultEntity, project: DEFAULT_USAGE_PROJECT },
      report: { attempts: 0 },
      endUser: typeof (raw as { user?: unknown })?.user === 'string' ? ((raw as { user: string }).user.slice(0, 512)) : null,
    };
    try {
      exchange.attribution = attributionOf(caller.principal, caller.project);
    } catch (error) {
      this.finish(exchange, error);
      throw error;
    }
    return exchange;
  }

  private async admit(exchange: Exchange, raw: unknown, toChat?: ToChatRequest): Promise<{ request: ChatCompletionRequest; backend: ChatBackend }> {
    try {
      const request = validateOrThrow(ChatCompletionRequestSchema, toChat ? toChat(raw) : raw, 'body');
      const backend = await this.backendOf(request.model, exchange.caller);
      exchange.backend = backend;
      assertParametersSupported(backend, request.model, request);
      const { attribution, caller } = exchange;
      exchange.lease = await this.limiter.acquire(caller.principal.apiKeyId, `${attribution.entity}/${attribution.project}`);
      // Only requests that name a project are traced there (and only if the project did not switch it off).
      if (this.usage.tracing && caller.project && this.traceSettings.isEnabled(attribution.entity, attribution.project)) {
        exchange.trace = { request };
      }
      return { request, backend };
    } catch (error) {
      this.finish(exchange, error);
      throw error;
    }
  }

  /**
   * The catalog's model of that id; else, for a name shaped `{entity}/{project}/{model}:{alias}`, the training
   * checkpoint the alias names now (the catalog wins: an administrator may register such an id on purpose).
   */
  private async backendOf(model: string, caller: ChatCaller): Promise<ChatBackend> {
    const checkpoint = this.checkpoints && !this.catalog.find(model) ? parsePromotedCheckpointName(model) : null;
    if (checkpoint) return this.checkpoints!.resolve(checkpoint, caller.principal, caller.requestId, caller.signal);
    return this.catalog.resolve(model, caller.principal).backend;
  }

  private finish(exchange: Exchange, error?: unknown): void {
    exchange.lease?.release();
    const failure = error === undefined ? undefined : error instanceof TrellisError ? error : undefined;
    if (error !== undefined && !failure) this.logger.error({ err: error }, 'chat completion failed unexpectedly');
    const usage = exchange.usage;
    this.usage.record({
      createdAt: exchange.createdAt,
      entity: exchange.attribution.entity,
      project: exchange.attribution.project,
      model: exchange.model,
      backend: exchange.backend?.kind ?? null,
      deployment: exchange.report.deployment ?? null,
      apiKeyId: exchange.caller.principal.apiKeyId,
      userId: exchange.caller.principal.userId,
      endUser: exchange.endUser ?? null,
      stream: exchange.stream,
      status: error === undefined ? 200 : answeredStatus(failure),
      errorCode: error === undefined ? null : (failure?.code ?? 'INTERNAL'),
      errorMessage: error === undefined ? null : (failure?.message ?? 'Internal server error').slice(0, 1000),
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? 0,
      totalTokens: usage?.total_tokens ?? (usage ? usage.prompt_tokens + usage.completion_tokens : 0),
      latencyMs: performance.now() - exchange.started,
      firstTokenMs: exchange.firstTokenMs ?? null,
      attempts: exchange.report.attempts,
      requestId: exchange.caller.requestId ?? null,
    });
    if (exchange.trace) {
      this.usage.recordTrace(
        buildCompletionTrace({
          attribution: exchange.attribution,
          author: exchange.caller.principal.username,
          authorId: exchange.caller.principal.userId,
          request: exchange.trace.request,
          startedAt: exchange.createdAt,
          durationMs: performance.now() - exchange.started,
          usage,
          output: exchange.trace.output,
          failure: error === undefined ? undefined : (failure?.message ?? 'Internal server error'),
          stream: exchange.stream,
          backend: exchange.backend?.kind ?? null,
          requestId: exchange.caller.requestId ?? null,
        }),
      );
    }
  }
}

function backendRequest(request: ChatCompletionRequest, report: BackendReport): BackendRequest {
  const { stream: _stream, stream_options: _streamOptions, ...body } = request;
  return { body: body as ChatCompletionRequest, report };
}

/** The status the client was answered with: the inference family answers validation failures with OpenAI's 400. */
export function answeredStatus(failure: TrellisError | undefined): number {
  if (!failure) return 500;
  return failure.code === 'VALIDATION_FAILED' ? 400 : failure.status;
}

function modelOf(raw: unknown): string {
  const model = (raw as { model?: unknown })?.model;
  return typeof model === 'string' ? model.slice(0, 512) : '';
}

function withoutUsage(chunk: ChatCompletionChunk): ChatCompletionChunk {
  const { usage: _usage, ...rest } = chunk;
  return rest as ChatCompletionChunk;
}
