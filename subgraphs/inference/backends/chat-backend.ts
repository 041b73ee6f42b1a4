import type { ChatCompletion, ChatCompletionChunk } from '../chat/chat-completion.js';
import type { ChatCompletionRequest } from '../chat/chat-request.schema.js';
import type { EmbeddingsResponse } from '../embeddings/embeddings.js';
import type { EmbeddingsRequest } from '../embeddings/embeddings-request.schema.js';

/**
 * What serves a catalog model. The chat service resolves the model, checks the request's optional parameters
 * against `capabilities`, and calls `complete` or `stream`; backends throw TrellisErrors (502 garbage,
 * 504 hung upstream, 400 rejected parameters, 429/503 overloaded) and stop as soon as `signal` aborts.
 */
export const BACKEND_KINDS = ['openai-compatible', 'embedded'] as const;
export type BackendKind = (typeof BACKEND_KINDS)[number];

export interface BackendRequest {
  /** The validated OpenAI request without `stream`/`stream_options`; `model` is the public id. */
  body: ChatCompletionRequest;
  /** Filled in by the backend: which deployment answered and after how many attempts (usage records). */
  report: BackendReport;
}

export interface EmbeddingsBackendRequest {
  /** The validated OpenAI embeddings request; `model` is the public id. */
  body: EmbeddingsRequest;
  report: BackendReport;
}

export interface BackendReport {
  deployment?: string;
  attempts: number;
}

export interface ChatBackend {
  readonly kind: BackendKind;
  /**
   * The optional request parameters this backend honours: `all` passes every parameter to a server that judges
   * them itself; otherwise a request naming anything else is refused with 400 naming the parameter.
   */
  readonly capabilities: 'all' | ReadonlySet<string>;
  complete(request: BackendRequest, signal: AbortSignal): Promise<ChatCompletion>;
  /**
   * Chunks as they are produced. The first `next()` settles when the first chunk exists (or fails with the
   * error to answer); the last chunk carries `usage` when the backend knows it.
   */
  stream(request: BackendRequest, signal: AbortSignal): AsyncIterable<ChatCompletionChunk>;
  /**
   * Embeddings in OpenAI's response shape (`model` the public id, `usage` counted). Called only for catalog models
   * that declare `embeddings`; a backend without it cannot serve them.
   */
  embed?(request: EmbeddingsBackendRequest, signal: AbortSignal): Promise<EmbeddingsResponse>;
  /** Releases connections once in-flight requests are done. */
  close(): Promise<void>;
}
