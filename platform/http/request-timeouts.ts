import type { PlatformConfig } from '../config.js';

/**
 * Fastify server options that bound how long a client may take to send a request: the headers within
 * `headersTimeoutMs`, the whole request (body included) within `requestTimeoutMs`; a client past either gets 408
 * and its connection closed. Node applies both to receiving the request only, so a long response (a server-sent
 * event stream, a graphql-ws socket, which leaves HTTP at the upgrade) is not cut. Fastify disables Node's request
 * timeout unless given one, and Node checks the deadlines only every `connectionsCheckingInterval` (30 s by
 * default), hence an interval derived from the timeouts: a slow client is cut at most a tenth of the timeout late.
 */
export function requestTimeoutOptions(config: Pick<PlatformConfig, 'requestTimeoutMs' | 'headersTimeoutMs'>) {
  const checkEveryMs = Math.max(50, Math.min(5_000, Math.floor(Math.min(config.requestTimeoutMs, config.headersTimeoutMs) / 10)));
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: checkEveryMs,
    },
  };
}
