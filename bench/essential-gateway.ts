import cluster from 'node:cluster';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool, type Dispatcher } from 'undici';

/**
 * The inference benchmark's bound: the least a gateway doing the work issue #15 requires of Trellis' hop costs —
 * authenticate the API key (hashed, compared), parse and check the body, relay the request to the upstream over a
 * keep-alive pool, read the usage from the answer, and record every request with its usage, request and answer in
 * PostgreSQL (a row per request, multi-row inserts every 50 ms: the work of a usage record plus a traced call). A
 * process per core, like `npm start`. It has none of Trellis' structure: no HTTP framework, no GraphQL, no model
 * catalog, limits or failover, one table instead of usage records, platform events and calls, errors reduced to
 * OpenAI's shape for the two it checks. Between the floor (one bare hop) and Trellis, it shows how much of the
 * target is the work itself and how much is how Trellis does it.
 *
 *   node dist/bench/essential-gateway.js --upstream http://127.0.0.1:PORT --database postgres://… --api-key KEY
 *     (prints {"port":N} once every process listens)
 */
const FLUSH_MS = 50;

interface Exchange {
  id: string;
  model: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  startedAt: Date;
  endedAt: Date;
  request: string;
  response: string;
}

const TABLE = 'bench_essentials.exchange';

async function createTable(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('create schema if not exists bench_essentials');
    await client.query(
      `create table if not exists ${TABLE} (id uuid primary key, model text not null, stream boolean not null,
       prompt_tokens int not null, completion_tokens int not null, started_at timestamptz not null, ended_at timestamptz not null,
       request jsonb not null, response jsonb not null)`,
    );
  } finally {
    await client.end();
  }
}

/** Buffers finished exchanges and writes them in one multi-row insert per interval. */
class ExchangeWriter {
  private buffer: Exchange[] = [];
  private readonly db: pg.Pool;

  constructor(databaseUrl: string) {
    this.db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    setInterval(() => this.flush(), FLUSH_MS).unref();
  }

  record(exchange: Exchange): void {
    this.buffer.push(exchange);
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    const column = <K extends keyof Exchange>(key: K) => rows.map((row) => row[key]);
    this.db
      .query(
        `insert into ${TABLE} select * from unnest($1::uuid[], $2::text[], $3::boolean[], $4::int[], $5::int[], $6::timestamptz[],
         $7::timestamptz[], $8::jsonb[], $9::jsonb[])`,
        [column('id'), column('model'), column('stream'), column('promptTokens'), column('completionTokens'), column('startedAt'), column('endedAt'), column('request'), column('response')],
      )
      .catch((error: Error) => process.stderr.write(`essential gateway: insert failed: ${error.message}\n`));
  }
}

function sendError(res: http.ServerResponse, status: number, message: string, param: string | null = null): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param, code: null } }));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The usage an answer reports: the whole body of a plain one, the last `usage` of a stream's events. */
function usageOf(text: string): { prompt: number; completion: number } {
  const match = /"usage":\{"prompt_tokens":(\d+),"completion_tokens":(\d+)/.exec(text.slice(text.lastIndexOf('"usage"')));
  return match ? { prompt: Number(match[1]), completion: Number(match[2]) } : { prompt: 0, completion: 0 };
}

function serve(upstream: string, databaseUrl: string, apiKey: string): http.Server {
  const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 30_000 });
  const writer = new ExchangeWriter(databaseUrl);
  const keyHash = sha256(apiKey);
  return http.createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    const presented = authorization.startsWith('Bearer ') ? sha256(authorization.slice(7)) : undefined;
    if (!presented || !timingSafeEqual(presented, keyHash)) return sendError(res, 401, 'Incorrect API key provided');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const startedAt = new Date();
      const requestText = Buffer.concat(chunks).toString('utf8');
      let body: { model?: unknown; messages?: unknown; stream?: unknown };
      try {
        body = JSON.parse(requestText) as typeof body;
      } catch {
        return sendError(res, 400, 'The request body is not valid JSON');
      }
      if (typeof body !== 'object' || body === null) return sendError(res, 400, 'The request body must be a JSON object');
      if (typeof body.model !== 'string') return sendError(res, 400, 'model is required', 'model');
      if (!Array.isArray(body.messages) || body.messages.length === 0) return sendError(res, 400, 'messages must be a non-empty array', 'messages');
      const model = body.model;
      const stream = body.stream === true;
      const answer: Buffer[] = [];
      let status = 0;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, headers) {
          status = statusCode;
          res.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? 'application/json'), 'x-request-id': randomUUID() });
        },
        onResponseData(_controller, chunk) {
          answer.push(chunk);
          if (stream) res.write(chunk);
        },
        onResponseEnd() {
          const text = Buffer.concat(answer).toString('utf8');
          if (stream) res.end();
          else res.end(text);
          if (status !== 200) return;
          const usage = usageOf(text);
          writer.record({
            id: randomUUID(),
            model,
            stream,
            promptTokens: usage.prompt,
            completionTokens: usage.completion,
            startedAt,
            endedAt: new Date(),
            request: requestText,
            // A stream is recorded by its events' text (as a JSON string); a plain answer as the object it is.
            response: stream ? JSON.stringify(text) : text,
          });
        },
        onResponseError() {
          if (!res.headersSent) return sendError(res, 502, 'The model server could not be reached');
          res.end();
        },
      };
      pool.dispatch(
        {
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body: stream ? JSON.stringify({ ...body, stream_options: { include_usage: true } }) : requestText,
        },
        handler,
      );
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const option = (name: string) => {
    const index = process.argv.indexOf(`--${name}`);
    if (index < 0) throw new Error(`--${name} is required`);
    return process.argv[index + 1]!;
  };
  const [upstream, databaseUrl, apiKey] = [option('upstream'), option('database'), option('api-key')];
  if (cluster.isPrimary) {
    await createTable(databaseUrl);
    const processes = os.availableParallelism();
    let listening = 0;
    cluster.on('listening', (_worker, address) => {
      if (++listening === processes) process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
    });
    for (let index = 0; index < processes; index++) cluster.fork();
    process.on('SIGTERM', () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      process.exit(0);
    });
  } else {
    // Port 0 in a cluster worker: the primary binds one port and every worker shares it.
    serve(upstream, databaseUrl, apiKey).listen(0, '127.0.0.1');
  }
}
