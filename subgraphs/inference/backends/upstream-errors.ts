import { TrellisError } from '../../../platform/errors.js';

/**
 * The errors a backend answers with, named for what happened upstream. Messages never carry upstream URLs or
 * credentials: clients see which kind of failure it was, operators see the deployment in usage records.
 */
export class UpstreamGarbageError extends TrellisError {
  constructor(detail: string) {
    super(502, 'UPSTREAM_ERROR', `The model server answered with something that is not an OpenAI chat completion (${detail})`);
  }
}

export class UpstreamFailedError extends TrellisError {
  constructor(message: string) {
    super(502, 'UPSTREAM_ERROR', message);
  }
}

export class UpstreamTimeoutError extends TrellisError {
  constructor(timeoutMs: number, phase: 'first byte' | 'next byte') {
    super(504, 'UPSTREAM_TIMEOUT', `The model server sent no ${phase} within ${timeoutMs} ms`);
  }
}

export class UpstreamRateLimitedError extends TrellisError {
  constructor(retryAfterSeconds: number | undefined) {
    super(429, 'RATE_LIMITED', 'The model server is over its rate limit; retry later', { retryAfterSeconds: retryAfterSeconds ?? 1 });
  }
}

export class NoDeploymentError extends TrellisError {
  constructor(model: string) {
    super(503, 'UNAVAILABLE', `Model '${model}' has no deployment that can serve it right now`, { retryAfterSeconds: 1 });
  }
}

/** The client went away; never shown to anyone (there is no one to show it to), but recorded in usage. */
export class ClientClosedError extends TrellisError {
  constructor() {
    super(499, 'BAD_REQUEST', 'The client closed the request');
  }
}

/** Wraps the error a failed attempt would answer with, when another deployment may still succeed. */
export class RetryableAttemptError extends Error {
  override name = 'RetryableAttemptError';
  constructor(readonly error: TrellisError) {
    super(error.message);
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

function errorCode(error: unknown): string | undefined {
  const direct = (error as { code?: unknown })?.code;
  if (typeof direct === 'string') return direct;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof cause === 'string' ? cause : undefined;
}

/** Classifies an error thrown while sending a request, before any response byte arrived. */
export function classifyRequestError(error: unknown, signal: AbortSignal, timeoutMs: number): Error {
  if (signal.aborted) return new ClientClosedError();
  const code = errorCode(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new RetryableAttemptError(new UpstreamTimeoutError(timeoutMs, 'first byte'));
  if (code && CONNECTION_ERROR_CODES.has(code)) {
    return new RetryableAttemptError(new UpstreamFailedError('Could not reach the model server'));
  }
  return new UpstreamFailedError('The request to the model server failed');
}

/** Classifies an error thrown while reading a response body, after the status line arrived. */
export function classifyBodyError(error: unknown, signal: AbortSignal, timeoutMs: number): TrellisError {
  if (error instanceof TrellisError) return error;
  if (signal.aborted) return new ClientClosedError();
  if (errorCode(error) === 'UND_ERR_BODY_TIMEOUT') return new UpstreamTimeoutError(timeoutMs, 'next byte');
  return new UpstreamFailedError('The model server closed the connection mid-response');
}

/** The OpenAI-shaped error body of an upstream's non-200 answer, when it has one. */
export function upstreamErrorDetail(text: string): { message?: string; param?: string } {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown; param?: unknown } | string; message?: unknown };
    const error = parsed.error;
    if (typeof error === 'string') return { message: error };
    const message = typeof error?.message === 'string' ? error.message : typeof parsed.message === 'string' ? parsed.message : undefined;
    return { message: message?.slice(0, 1000), param: typeof error?.param === 'string' ? error.param : undefined };
  } catch {
    return {};
  }
}

/**
 * What an upstream's non-200 status means for our client: overload and server errors may succeed elsewhere
 * (retryable); a parameter the server rejects is the client's 400; a credential or model name the server does
 * not know is our configuration's fault (502).
 */
export function classifyStatus(status: number, text: string, retryAfter: string | undefined): Error {
  const detail = upstreamErrorDetail(text);
  if (status === 429) {
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    return new RetryableAttemptError(new UpstreamRateLimitedError(seconds));
  }
  if (status === 408) return new RetryableAttemptError(new UpstreamFailedError('The model server timed out the request'));
  if (status >= 500) return new RetryableAttemptError(new UpstreamFailedError(`The model server failed (HTTP ${status})`));
  if (status === 401 || status === 403) return new UpstreamFailedError('The model server refused the credential configured for this model');
  if (status === 404) return new UpstreamFailedError('The model server does not know the model configured for this model id');
  if (status === 413) return new TrellisError(413, 'PAYLOAD_TOO_LARGE', detail.message ?? 'The request is too large for the model server');
  return new TrellisError(400, 'BAD_REQUEST', detail.message ?? `The model server rejected the request (HTTP ${status})`, { param: detail.param });
}
