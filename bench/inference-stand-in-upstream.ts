import http from 'node:http';
import { fileURLToPath } from 'node:url';

/**
 * A tiny OpenAI-compatible server on loopback: the upstream of the inference benchmark (run as its own process:
 * `node dist/bench/inference-stand-in-upstream.js --port 0 --delay-ms 20`) and of the inference tests, which
 * switch its behaviour to check retries, time-outs and garbage handling.
 */
export const STAND_IN_MODES = ['ok', 'fail-500', 'hang', 'garbage', 'disconnect', 'stream-then-hang', 'unauthorized'] as const;
export type StandInMode = (typeof STAND_IN_MODES)[number];

export interface StandInOptions {
  port?: number;
  /** Wait before answering (non-streaming) or before the first chunk (streaming). */
  delayMs?: number;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  mode?: StandInMode;
  name?: string;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
}

export interface ReceivedRequest {
  body: Record<string, any>;
  authorization: string | undefined;
}

export interface StandInUpstream {
  url: string;
  /** Base URL as OpenAI clients take it (ends in /v1). */
  baseUrl: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests whose client went away before the response ended. */
  abandoned: number;
  setMode(mode: StandInMode): void;
  close(): Promise<void>;
}

const WORDS = ['Hello', ' from', ' the', ' stand-in', ' upstream', '.'];

export async function startStandInUpstream(options: StandInOptions = {}): Promise<StandInUpstream> {
  let mode: StandInMode = options.mode ?? 'ok';
  const delayMs = options.delayMs ?? 0;
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const name = options.name ?? 'stand-in';
  const requests: ReceivedRequest[] = [];
  const state = { abandoned: 0 };
  const recordRequests = options.port === undefined || process.env.STAND_IN_RECORD === '1';

  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: name, object: 'model', created: 0, owned_by: 'stand-in' }] }));
      return;
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, any>;
      if (recordRequests) requests.push({ body, authorization: req.headers.authorization });
      let finished = false;
      res.on('finish', () => (finished = true));
      res.on('close', () => {
        if (!finished) state.abandoned++;
      });
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      answer(body, res);
    });
  });

  function answer(body: Record<string, any>, res: http.ServerResponse): void {
    switch (mode) {
      case 'hang':
        return; // never answers: the client's time-out decides
      case 'fail-500':
        return void later(delayMs, () => json(res, 500, { error: { message: 'internal upstream failure', type: 'server_error' } }));
      case 'unauthorized':
        return json(res, 401, { error: { message: 'bad key', type: 'invalid_request_error' } });
      case 'garbage':
        return void later(delayMs, () => {
          res.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
          res.end(body.stream ? 'data: {not json\n\n' : '<html>definitely not a completion</html>');
        });
      case 'disconnect':
        return void later(delayMs, () => res.socket?.destroy());
    }
    const format = body.response_format?.type;
    if (format !== undefined && format !== 'text' && format !== 'json_object') {
      return json(res, 400, { error: { message: `response_format.type ${format} is not supported`, type: 'invalid_request_error', param: 'response_format' } });
    }
    const promptTokens = countWords(body.messages);
    const id = `chatcmpl-${name}-${Date.now().toString(36)}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream) return void later(delayMs, () => stream(res, body, id, created, promptTokens));
    later(delayMs, () =>
      json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        system_fingerprint: name,
        choices: Array.from({ length: body.n ?? 1 }, (_, index) => ({
          index,
          message: { role: 'assistant', content: WORDS.join('') },
          finish_reason: 'stop',
          logprobs: null,
        })),
        usage: { prompt_tokens: promptTokens, completion_tokens: WORDS.length, total_tokens: promptTokens + WORDS.length },
      }),
    );
  }

  function stream(res: http.ServerResponse, body: Record<string, any>, id: string, created: number, promptTokens: number): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const events = [chunk({ role: 'assistant', content: '' }, null), ...WORDS.map((word) => chunk({ content: word }, null)), chunk({}, 'stop')];
    if (body.stream_options?.include_usage) {
      events.push(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: WORDS.length, total_tokens: promptTokens + WORDS.length } })}\n\n`,
      );
    }
    events.push('data: [DONE]\n\n');
    const hangAfter = mode === 'stream-then-hang' ? 2 : Infinity;
    let index = 0;
    const next = () => {
      if (res.destroyed) return;
      if (index >= hangAfter) return; // keeps the connection open, sends nothing more
      if (chunkDelayMs === 0 && hangAfter === Infinity) {
        // One write per batch keeps the stand-in cheap under load; the first event still goes out alone.
        if (index === 0) res.write(events[index++]!);
        res.end(events.slice(index).join(''));
        return;
      }
      res.write(events[index++]!);
      if (index === events.length) res.end();
      else if (chunkDelayMs === 0) setImmediate(next);
      else setTimeout(next, chunkDelayMs);
    };
    next();
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    requests,
    get abandoned() {
      return state.abandoned;
    },
    setMode(next) {
      mode = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function later(ms: number, run: () => void): void {
  if (ms <= 0) run();
  else setTimeout(run, ms);
}

function countWords(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let count = 0;
  for (const message of messages) {
    const content = (message as { content?: unknown })?.content;
    if (typeof content === 'string') count += content.split(/\s+/).filter(Boolean).length;
  }
  return count;
}

// Run as a process: print the port on stdout, serve until killed.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (flag: string) => {
    const index = process.argv.indexOf(flag);
    return index >= 0 ? process.argv[index + 1] : undefined;
  };
  const upstream = await startStandInUpstream({
    port: Number(arg('--port') ?? 0),
    delayMs: Number(arg('--delay-ms') ?? 0),
    chunkDelayMs: Number(arg('--chunk-delay-ms') ?? 0),
  });
  process.stdout.write(`${JSON.stringify({ port: upstream.port })}\n`);
  process.on('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
}
