import type http from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Once an HTTP server has an 'upgrade' listener, Node hands it every request that carries `Upgrade`, on any path,
 * and nothing else answers it: a request that no listener takes keeps its socket open forever (and the server's
 * close waits for it). So upgrades are routed here, in one place: each WebSocket endpoint registers its path, and
 * an upgrade request to any other path is answered 404 and closed.
 */
export type UpgradeHandler = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

const routers = new WeakMap<http.Server, Map<string, UpgradeHandler>>();

/** Serves upgrade requests to `path` with `handler`; returns a function that stops serving them. */
export function handleUpgrades(server: http.Server, path: string, handler: UpgradeHandler): () => void {
  let handlers = routers.get(server);
  if (!handlers) {
    const created = new Map<string, UpgradeHandler>();
    routers.set(server, (handlers = created));
    server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      const requested = pathOf(request.url);
      const serve = requested === undefined ? undefined : created.get(requested);
      if (serve) serve(request, socket, head);
      else refuseUpgrade(socket, `No WebSocket endpoint at ${requested ?? 'this URL'}`);
    });
  }
  handlers.set(path, handler);
  return () => {
    if (handlers.get(path) === handler) handlers.delete(path);
  };
}

function pathOf(url: string | undefined): string | undefined {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

function refuseUpgrade(socket: Duplex, message: string): void {
  // The client may be gone already: a write error must not escape as an unhandled 'error' event.
  socket.on('error', () => socket.destroy());
  // The platform's own error shape (OpenAI-style, as rest-adapter/error-shapes.ts renders a NotFoundError for it).
  const body = JSON.stringify({ error: { message, type: 'not_found_error', param: null, code: 'not_found' } });
  socket.end(
    `HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // end() only half-closes: a client that never closes its side must not keep the socket.
  socket.once('finish', () => socket.destroy());
}
