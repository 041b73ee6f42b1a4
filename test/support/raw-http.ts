import net from 'node:net';

/**
 * HTTP/1.1 spoken by hand over one TCP connection, for what fetch hides: interim `100 Continue` responses, bodies
 * sent in pieces (or never), upgrade requests, several requests on one keep-alive connection, and how the server
 * ends the connection (a clean close or a reset).
 */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  send(data: string | Buffer): void;
  /** The next response on the connection (interim `100 Continue` ones included); rejects after `timeoutMs`. */
  nextResponse(timeoutMs?: number): Promise<RawResponse>;
  /** Resolves once the server has ended the connection: `closed` (FIN) or the socket error's code (e.g. ECONNRESET). */
  ended: Promise<string>;
  isEnded(): boolean;
  destroy(): void;
}

export function connectRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let buffer = Buffer.alloc(0);
    let waiter: (() => void) | undefined;
    let endedHow: string | undefined;
    const ended = new Promise<string>((resolveEnded) => {
      const finish = (how: string) => {
        endedHow ??= how;
        resolveEnded(endedHow);
        waiter?.();
      };
      socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
      socket.on('end', () => finish('closed'));
      socket.on('close', () => finish('closed'));
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      waiter?.();
    });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve({
        send: (data) => socket.write(data),
        ended,
        isEnded: () => endedHow !== undefined,
        destroy: () => socket.destroy(),
        nextResponse: (timeoutMs = 5_000) =>
          new Promise<RawResponse>((resolveResponse, rejectResponse) => {
            const timer = setTimeout(() => {
              waiter = undefined;
              rejectResponse(new Error(`no complete response within ${timeoutMs} ms; received so far: ${JSON.stringify(buffer.toString('latin1').slice(0, 300))}`));
            }, timeoutMs);
            const attempt = () => {
              const parsed = parseResponse(buffer);
              if (parsed) {
                buffer = buffer.subarray(parsed.length);
                clearTimeout(timer);
                waiter = undefined;
                resolveResponse(parsed.response);
              } else if (endedHow !== undefined) {
                clearTimeout(timer);
                waiter = undefined;
                rejectResponse(new Error(`connection ended (${endedHow}) before a complete response; received: ${JSON.stringify(buffer.toString('latin1').slice(0, 300))}`));
              }
            };
            waiter = attempt;
            attempt();
          }),
      });
    });
    socket.once('error', reject);
  });
}

/** One response at the start of `buffer` (Content-Length or chunked body), or undefined while it is incomplete. */
function parseResponse(buffer: Buffer): { response: RawResponse; length: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(statusLine!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let offset = headEnd + 4;
  if (status === 100 || status === 101 || status === 204 || status === 304) return { response: { status, headers, body: '' }, length: offset };
  if (headers['transfer-encoding']?.includes('chunked')) {
    const parts: Buffer[] = [];
    while (true) {
      const lineEnd = buffer.indexOf('\r\n', offset);
      if (lineEnd < 0) return undefined;
      const size = parseInt(buffer.subarray(offset, lineEnd).toString('latin1'), 16);
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
      if (size === 0) return { response: { status, headers, body: Buffer.concat(parts).toString('utf8') }, length: offset };
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  if (buffer.length < offset + length) return undefined;
  return { response: { status, headers, body: buffer.subarray(offset, offset + length).toString('utf8') }, length: offset + length };
}

/** The head of a request, with CRLFs; `headers` are written as given. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

/** Headers of a well-formed WebSocket upgrade request. */
export const WEBSOCKET_UPGRADE_HEADERS = {
  Connection: 'Upgrade',
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': 13,
  'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
