import http from 'node:http';
import https from 'node:https';
import type { RemoteGraphQLDataSource } from '@apollo/gateway';

type Fetcher = RemoteGraphQLDataSource['fetcher'];

export interface SubgraphFetcherOptions {
  /** Further tries of a fetch that cannot have run anywhere (default 2). */
  retries?: number;
  /** Backoff before the first retry, doubled for each next one, with up to as much again of jitter (default 50 ms). */
  backoffMs?: number;
  /** Told of each retry (the gateway logs it), before its backoff. */
  onRetry?: (retry: { attempt: number; url: string; reason: string }) => void;
}

/**
 * How the gateway reaches subgraph services: Node's HTTP client on keep-alive connections, with a bounded retry of
 * a fetch that nothing can have run — so a rolling restart of a service costs its clients nothing:
 * - the connection could not be made (refused: the service is down or restarting; its name does not resolve);
 * - the connection broke before the request was written out (a reset on connecting);
 * - the service answered 503 without a GraphQL response: Fastify's answer while it closes (`return503OnClosing`),
 *   before any route ran. A GraphQL answer, even one that says UNAVAILABLE, is the subgraph's and stays as it is.
 * A retry uses a fresh connection with a fresh name lookup, so behind a load balancer or a name with several
 * addresses it may reach another replica. Anything else (a reset after the request was written, a timeout) is
 * not retried: the operation may have run. Apollo's default fetcher (make-fetch-happen) cannot tell these apart,
 * and it caches name lookups for five minutes, so its fresh connections kept going to a replica that was gone.
 */
/** How long a kept-alive connection to a subgraph service may stay idle (Node's agent closes it then). */
export const IDLE_CONNECTION_MS = 500;

export function subgraphFetcher(options: SubgraphFetcherOptions = {}): Fetcher {
  const retries = options.retries ?? 2;
  const backoffMs = options.backoffMs ?? 50;
  // Idle connections are closed after IDLE_CONNECTION_MS, well inside a leaving service's leave phase
  // (TRELLIS_SHUTDOWN_DELAY_MS): by the end of it, when the service closes what is still open, no connection of the
  // gateway to it is left idle to be picked for a request just as it closes (a reset after the request was written,
  // which is never retried).
  const agentOptions = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  return async (url, init = {}) => {
    for (let attempt = 0; ; attempt++) {
      const outcome = await send(url, init, agents);
      const reason = outcome.notRun;
      if (reason === undefined || attempt >= retries) {
        if (outcome.error) throw outcome.error;
        return outcome.response!;
      }
      options.onRetry?.({ attempt: attempt + 1, url, reason });
      const delay = backoffMs * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    }
  };
}

interface Outcome {
  response?: Response;
  error?: Error;
  /** Why nothing can have run, when that is so (the fetch may be retried). */
  notRun?: string;
}

function send(url: string, init: Parameters<Fetcher>[1] & object, agents: { http: http.Agent; https: https.Agent }): Promise<Outcome> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const body = init.body === undefined ? undefined : Buffer.from(init.body);
  return new Promise((resolve) => {
    let written = false;
    const request = client.request(
      target,
      {
        method: init.method ?? 'POST',
        headers: { ...init.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        agent: target.protocol === 'https:' ? agents.https : agents.http,
        signal: init.signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', (error) => resolve({ error }));
        response.once('end', () => {
          const text = Buffer.concat(chunks);
          const status = response.statusCode ?? 0;
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
          }
          // A null-body status (204, 304) may not be given a body.
          const fetched = new Response(status === 204 || status === 304 ? null : text, { status, statusText: response.statusMessage ?? '', headers });
          resolve({ response: fetched, notRun: status === 503 && !isGraphQLResponse(text) ? 'the service is closing (503)' : undefined });
        });
      },
    );
    request.once('finish', () => (written = true));
    request.once('error', (error: NodeJS.ErrnoException) => {
      resolve({ error, notRun: notRunReason(error, written) });
    });
    request.end(body);
  });
}

/** Why a failed request cannot have run, or undefined when it may have. */
function notRunReason(error: NodeJS.ErrnoException, written: boolean): string | undefined {
  if (error.syscall === 'connect' || error.syscall === 'getaddrinfo' || error.code === 'ECONNREFUSED') return `connection failed (${error.code})`;
  if (!written && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return `connection reset before the request was written (${error.code})`;
  return undefined;
}

function isGraphQLResponse(body: Buffer): boolean {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && ('data' in parsed || 'errors' in parsed);
  } catch {
    return false;
  }
}
