import type http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * How long idle keep-alive connections stay open once closing begins (at most the drain timeout): long enough for a
 * client that is sending requests to get its 503 + `Connection: close` on each of its connections.
 */
const IDLE_GRACE_MS = 500;

/** The HTTP servers whose close has begun: their `/readyz` fails from that moment (readiness.ts). */
const draining = new WeakSet<http.Server>();

/** Whether this server's graceful close has begun (its leave phase included). */
export function isDraining(app: FastifyInstance): boolean {
  // By its HTTP server: the same for every encapsulated Fastify context of the app.
  return draining.has(app.server);
}

/** The response a connection is serving now (set by the 'request' listener below, cleared when it closes). */
const inFlight = Symbol('trellis.responseInFlight');
type TrackedSocket = Socket & { [inFlight]?: http.ServerResponse };

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
 *
 * Behind a load balancer, closing the listener at once is not enough: the balancer keeps sending new connections
 * until its health check notices, and a client's keep-alive connection through a TCP balancer stays pinned to this
 * process. So with `delayMs` the close begins with a leave phase: `/readyz` fails at once (isDraining, read by
 * readiness.ts) so balancers stop choosing this process; for `delayMs` every request is still served as usual, each
 * response saying `Connection: close`, so every client that is sending moves to a new connection, which the balancer
 * gives to another replica; only then does the close above begin, when every connection a client used during the
 * delay is gone. A connection left idle through the whole delay is closed after the idle grace as before: a request
 * sent on it at that very moment can still meet the close (HTTP/1.1 has no race-free way to close an idle connection),
 * so the delay should also outlast the clients' own idle timeout where it can.
 */
export function gracefulClose(app: FastifyInstance, options: { timeoutMs: number; delayMs?: number }): () => Promise<void> {
  const server = app.server;
  const sockets = new Set<TrackedSocket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let closing = false;
  // First in line, so the flag is set before Fastify's handler can send anything.
  server.prependListener('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (closing) response.shouldKeepAlive = false;
    // The response in flight is found through its connection, not kept in a Set of its own: a Set that every
    // request enters and leaves rehashes its table over and over, and a table that outlived two young-generation
    // collections keeps, once replaced, every response it held reachable for V8 until the next full collection —
    // each then promoted with its whole request, and new tables in turn (docs/benchmarks-history.md, inference, "2026-11-27, second session").
    const socket = request.socket as TrackedSocket;
    socket[inFlight] = response;
    response.once('close', () => {
      if (socket[inFlight] === response) socket[inFlight] = undefined;
    });
  });

  let closed: Promise<void> | undefined;
  return () =>
    (closed ??= (async () => {
      closing = true;
      draining.add(server);
      for (const socket of sockets) {
        const response = socket[inFlight];
        // With pipelining only the last response is tracked: it is the one whose `Connection: close` ends the socket.
        if (response && !response.headersSent) response.shouldKeepAlive = false;
      }
      // The leave phase: still listening and serving, while balancers see /readyz fail and clients move away.
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
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
