import type { ChatCompletion, ChatCompletionChunk } from '../../chat/chat-completion.js';
import type { BackendReport, BackendRequest, ChatBackend, EmbeddingsBackendRequest } from '../chat-backend.js';
import { isEmbeddingsResponse, type EmbeddingsResponse } from '../../embeddings/embeddings.js';
import {
  classifyBodyError,
  classifyRequestError,
  classifyStatus,
  NoDeploymentError,
  RetryableAttemptError,
  UpstreamFailedError,
  UpstreamGarbageError,
} from '../upstream-errors.js';
import { Deployment, DeploymentBalancer, type DeploymentSettings } from './deployment.js';
import { requestEventStream, type EventStreamResponse } from './event-stream-response.js';
import { requestWhole, ResponseBodyError, type WholeResponse } from './whole-response.js';

/**
 * Any server that speaks OpenAI's chat completions (vLLM, SGLang, Ollama, llama.cpp server, OpenAI itself).
 * Deployments of one model are load-balanced; an attempt that fails before the response started (connection
 * error, 5xx/429, no first byte in time) is retried on the next deployment and the failing one cools down.
 * Every parameter is passed through: the upstream judges it and its 400 reaches the client.
 */
export class OpenAICompatibleBackend implements ChatBackend {
  readonly kind = 'openai-compatible' as const;
  readonly capabilities = 'all' as const;
  private readonly balancer: DeploymentBalancer;

  constructor(
    private readonly modelId: string,
    deployments: DeploymentSettings[],
    cooldownMs: number,
  ) {
    this.balancer = new DeploymentBalancer(
      deployments.map((settings) => new Deployment(settings)),
      cooldownMs,
    );
  }

  get deployments(): readonly Deployment[] {
    return this.balancer.deployments;
  }

  async complete(request: BackendRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const answer = await this.requestWhole(request.report, signal, (candidate) => [candidate.completionsPath, upstreamPayload(candidate, request, false)]);
    if (!isCompletion(answer)) throw new UpstreamGarbageError('no choices');
    // The caller's public model id, not the upstream's name (set on the object just parsed: no copy).
    answer.model = request.body.model;
    return answer;
  }

  async *stream(request: BackendRequest, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const { deployment, result: response } = await this.attempt(request.report, (candidate) => this.sendStreaming(candidate, request, signal), signal);
    let finished = false;
    try {
      const contentType = String(response.headers['content-type'] ?? '');
      if (!contentType.includes('text/event-stream')) throw new UpstreamGarbageError(`expected an event stream, got ${contentType || 'no content type'}`);
      try {
        for await (const data of response.events()) {
          if (data === '[DONE]') {
            finished = true;
            break;
          }
          let chunk: unknown;
          try {
            chunk = JSON.parse(data);
          } catch {
            throw new UpstreamGarbageError('an event that is not JSON');
          }
          if (typeof chunk === 'object' && chunk !== null && 'error' in chunk) {
            throw new UpstreamFailedError('The model server reported an error mid-stream');
          }
          if (!isChunk(chunk)) throw new UpstreamGarbageError('an event that is not a chat.completion.chunk');
          chunk.model = request.body.model;
          yield chunk;
        }
      } catch (error) {
        throw classifyBodyError(error, signal, deployment.timeoutMs);
      }
      if (!finished) throw new UpstreamFailedError('The model server ended the stream early');
    } finally {
      deployment.inFlight--;
      // After [DONE] the rest of the body is (at most) a few bytes: reading it keeps the connection for the next
      // request. Otherwise (error, client gone) the connection is closed, which also stops the upstream's work.
      response.close(finished);
    }
  }

  /**
   * Embeddings passed through to the upstream's POST /embeddings (balanced and retried like completions): every
   * parameter reaches it, so it judges `dimensions` and `encoding_format` itself.
   */
  async embed(request: EmbeddingsBackendRequest, signal: AbortSignal): Promise<EmbeddingsResponse> {
    const answer = await this.requestWhole(request.report, signal, (candidate) => [
      candidate.embeddingsPath,
      JSON.stringify({ ...request.body, model: candidate.upstreamModel }),
    ]);
    if (!isEmbeddingsResponse(answer)) throw new UpstreamGarbageError('no embeddings list');
    answer.model = request.body.model;
    return answer;
  }

  /**
   * One request whose whole answer is read within the attempt (balanced and retried; nothing is retried once a 200
   * started, see sendWhole), parsed as JSON. `target` gives the chosen deployment's path and payload.
   */
  private async requestWhole(
    report: BackendReport,
    signal: AbortSignal,
    target: (candidate: Deployment) => [path: string, payload: string],
  ): Promise<unknown> {
    const { deployment, result: text } = await this.attempt(report, (candidate) => this.sendWhole(candidate, ...target(candidate), signal), signal);
    deployment.inFlight--;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new UpstreamGarbageError('not JSON');
    }
  }

  close(): Promise<void> {
    return Promise.all(this.balancer.deployments.map((deployment) => deployment.close())).then(() => undefined);
  }

  /**
   * Sends the request to deployments in balancing order until one answers 200. The deployment that answered is
   * returned with one more request in flight: the caller decrements it once it is done with the response.
   */
  private async attempt<T>(report: BackendReport, send: (deployment: Deployment) => Promise<T>, signal: AbortSignal): Promise<{ deployment: Deployment; result: T }> {
    let lastError: Error | undefined;
    for (const deployment of this.balancer.order()) {
      if (signal.aborted) break;
      report.attempts++;
      report.deployment = deployment.label;
      deployment.inFlight++;
      try {
        const result = await send(deployment);
        if (deployment.coolingUntil) this.balancer.markHealthy(deployment);
        return { deployment, result };
      } catch (error) {
        deployment.inFlight--;
        if (!(error instanceof RetryableAttemptError)) throw error;
        this.balancer.markFailed(deployment);
        lastError = error.error;
      }
    }
    if (signal.aborted) throw classifyRequestError(undefined, signal, 0);
    throw lastError ?? new NoDeploymentError(this.modelId);
  }

  /** One streaming attempt: resolves with the 200 response, whose events the caller reads as they arrive. */
  private async sendStreaming(deployment: Deployment, request: BackendRequest, signal: AbortSignal): Promise<EventStreamResponse> {
    let response: EventStreamResponse | WholeResponse;
    try {
      response = await requestEventStream(
        deployment.pool,
        { path: deployment.completionsPath, headers: deployment.headers, body: upstreamPayload(deployment, request, true) },
        signal,
      );
    } catch (error) {
      // The status decides; a body we could not read adds nothing.
      if (error instanceof ResponseBodyError) throw classifyStatus(error.statusCode, '', firstHeader(error.headers['retry-after']));
      throw classifyRequestError(error, signal, deployment.timeoutMs);
    }
    if (isEventStream(response)) return response;
    throw classifyStatus(response.statusCode, response.text.slice(0, 10_000), firstHeader(response.headers['retry-after']));
  }

  /** One non-streaming attempt (a completion, embeddings): resolves with the whole body of a 200 answer. */
  private async sendWhole(deployment: Deployment, path: string, body: string, signal: AbortSignal): Promise<string> {
    let response: WholeResponse;
    try {
      response = await requestWhole(deployment.pool, { path, headers: deployment.headers, body }, signal);
    } catch (error) {
      if (!(error instanceof ResponseBodyError)) throw classifyRequestError(error, signal, deployment.timeoutMs);
      // A 200 that broke off mid-body has started: not retried. Otherwise the status decides.
      if (error.statusCode === 200) throw classifyBodyError(error.error, signal, deployment.timeoutMs);
      throw classifyStatus(error.statusCode, '', firstHeader(error.headers['retry-after']));
    }
    if (response.statusCode === 200) return response.text;
    throw classifyStatus(response.statusCode, response.text.slice(0, 10_000), firstHeader(response.headers['retry-after']));
  }
}

function upstreamPayload(deployment: Deployment, request: BackendRequest, stream: boolean): string {
  const payload: Record<string, unknown> = { ...request.body, model: deployment.upstreamModel, stream };
  // Usage is recorded for every request, so the upstream is always asked for it; the chat service drops the usage
  // chunk again unless the client asked for it too. Without a stream there are no stream options (JSON drops an
  // undefined member; it is only set when there is one to drop, as serializing an undefined member is slower).
  if (stream) payload.stream_options = { include_usage: true };
  else if (payload.stream_options !== undefined) payload.stream_options = undefined;
  return JSON.stringify(payload);
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isCompletion(value: unknown): value is ChatCompletion {
  return typeof value === 'object' && value !== null && Array.isArray((value as { choices?: unknown }).choices);
}

function isEventStream(response: EventStreamResponse | WholeResponse): response is EventStreamResponse {
  return 'events' in response;
}

function isChunk(value: unknown): value is ChatCompletionChunk {
  return typeof value === 'object' && value !== null && Array.isArray((value as { choices?: unknown }).choices);
}
