import type http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * How long idle keep-alive connections stay open once closing begins (at most the drain timeout): long enough for a
 * client that is sending requests to get its 503 + `Connection: close` on each of its connections.
 */
const IDLE_GRACE_MS = 500;

/**
 * Graceful close of the HTTP server, bounded by `timeoutMs`. Install before the server listens (it follows every
 * connection from the start); call the returned function to close.
 *
 * Fastify's close alone (Node's server.close) does three things wrong for a drain: it destroys idle keep-alive
 * sockets at once, so a request already on its way on one meets a reset instead of an answer; responses still in
 * flight say `Connection: keep-alive`, so their sockets then sit idle until the keep-alive timeout (72 s) before the
 * close resolves; and a socket that never finishes its request, or was upgraded, holds the close forever. Here:
 * - every response from now on says `Connection: close` (Fastify answers requests arriving while closing with 503);
 * - idle keep-alive connections stay open for a grace period, so requests already sent on them get that 503, then
 *   are closed, and so is every connection that becomes idle afterwards;
 * - at `timeoutMs` whatever is still open is destroyed, so the close always ends.
 */
export function gracefulClose(app: FastifyInstance, options: { timeoutMs: number }): () => Promise<void> {
  const server = app.server;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const responses = new Set<http.ServerResponse>();
  let closing = false;
  // First in line, so the flag is set before Fastify's handler can send anything.
  server.prependListener('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    if (closing) response.shouldKeepAlive = false;
    responses.add(response);
    response.once('close', () => responses.delete(response));
  });

  let closed: Promise<void> | undefined;
  return () =>
    (closed ??= (async () => {
      closing = true;
      for (const response of responses) if (!response.headersSent) response.shouldKeepAlive = false;
      // Node's server.close() would destroy idle sockets right away (httpServerPreClose): hold them for the grace.
      const closeIdleConnections = server.closeIdleConnections.bind(server);
      server.closeIdleConnections = () => {};
      const fastifyClosed = app.close().then(() => true);
      const deadline = Date.now() + options.timeoutMs;
      let reaper: NodeJS.Timeout | undefined;
      try {
        if (await closedBy(fastifyClosed, Math.min(deadline, Date.now() + IDLE_GRACE_MS))) return;
        closeIdleConnections();
        reaper = setInterval(closeIdleConnections, 100);
        if (await closedBy(fastifyClosed, deadline)) return;
        app.log.warn({ connections: sockets.size }, 'shutdown drain timeout reached: closing the connections still open');
        for (const socket of sockets) socket.destroy();
        await fastifyClosed;
      } finally {
        clearInterval(reaper);
        server.closeIdleConnections = closeIdleConnections;
      }
    })());
}

/** Whether `closed` settles before the time `at` (ms since the epoch). */
async function closedBy(closed: Promise<boolean>, at: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, Math.max(0, at - Date.now()), false)));
  try {
    return await Promise.race([closed, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
