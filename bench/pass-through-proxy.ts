import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { Pool, type Dispatcher } from 'undici';

/**
 * The floor of the inference benchmark: the least a Node proxy can do — read the request body, send it to the
 * upstream over a keep-alive pool, and relay status, content type and body bytes as they arrive. No auth, no
 * validation, no usage, no GraphQL. Run as its own process next to Trellis, it shows what one extra Node hop
 * costs on this machine under the same load, so Trellis' added latency can be read as "the hop" plus "Trellis".
 *
 *   node dist/bench/pass-through-proxy.js --upstream http://127.0.0.1:PORT   (prints {"port":N})
 */
export async function startPassThroughProxy(upstream: string, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 30_000 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, headers) {
          res.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? 'application/json') });
        },
        onResponseData(_controller, chunk) {
          res.write(chunk);
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError() {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        },
      };
      pool.dispatch(
        {
          path: req.url ?? '/',
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
          body: Buffer.concat(chunks),
        },
        handler,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => void pool.close().then(() => resolve()));
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const index = process.argv.indexOf('--upstream');
  if (index < 0) throw new Error('--upstream <origin> is required');
  const proxy = await startPassThroughProxy(process.argv[index + 1]!);
  process.stdout.write(`${JSON.stringify({ port: proxy.port })}\n`);
  process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
}
