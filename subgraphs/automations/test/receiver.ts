import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Responder = (request: ReceivedRequest, index: number) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

/** A real HTTP receiver on loopback that records every request and answers as the test tells it to. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private waiters: (() => void)[] = [];
  responder: Responder = () => ({ status: 200, body: 'ok' });
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: performance.now(),
      };
      const index = this.requests.push(request) - 1;
      for (const wake of this.waiters.splice(0)) wake();
      const answer = this.responder(request, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Resolves once `count` requests (matching `filter`) arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, filter: (request: ReceivedRequest) => boolean = () => true, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.requests.filter(filter);
      if (matching.length >= count) return matching;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} requests, got ${matching.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
