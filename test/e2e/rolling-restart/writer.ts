import { ADMIN_KEY } from '../../support/platform.js';

/**
 * A client writing through the front balancer, as applications do: tracing's REST writes (Weave's POST
 * /traces/call/start then /call/end of each call) and GraphQL writes (registry's createRun mutation), one request
 * every 50 ms in all (two loops, each starting a request every 100 ms, or as soon as its last one answered when that
 * took longer). No retries: every request that did not succeed is a failure, kept with what was answered. Every
 * write the platform acknowledged is remembered, to be read back.
 */
export interface FailedRequest {
  at: number;
  request: string;
  status?: number;
  retryAfter?: string | null;
  body?: unknown;
  error?: string;
}

const PROJECT = 'trellis/default';
const EVERY_MS = 100;
const basic = `Basic ${Buffer.from(`api:${ADMIN_KEY}`).toString('base64')}`;

export class Writer {
  readonly failures: FailedRequest[] = [];
  /** Calls whose start was acknowledged, and those whose end was too. */
  readonly startedCalls = new Set<string>();
  readonly endedCalls = new Set<string>();
  /** Runs whose creation was acknowledged: id → name. */
  readonly runs = new Map<string, string>();
  requests = 0;
  private sequence = 0;
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly url: string) {}

  start(): void {
    this.running = true;
    this.loops = [this.restLoop(), this.graphqlLoop()];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async paced(step: (n: number) => Promise<void>): Promise<void> {
    while (this.running) {
      // Numbered across loops and runs, so that no id or name is written twice.
      const n = this.sequence++;
      const started = Date.now();
      await step(n);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, EVERY_MS - (Date.now() - started))));
    }
  }

  private restLoop(): Promise<void> {
    let open: string | undefined;
    return this.paced(async (n) => {
      if (open) {
        const id = open;
        open = undefined;
        const ended = await this.send('POST /traces/call/end', '/traces/call/end', { authorization: basic }, {
          end: { project_id: PROJECT, id, ended_at: new Date().toISOString(), output: { n }, summary: {} },
        });
        if (ended) this.endedCalls.add(id);
        return;
      }
      const id = `rolling-${n}`;
      const started = await this.send('POST /traces/call/start', '/traces/call/start', { authorization: basic }, {
        start: { project_id: PROJECT, id, op_name: 'rolling_op', started_at: new Date().toISOString(), attributes: {}, inputs: { n } },
      });
      if (started) {
        this.startedCalls.add(id);
        open = id;
      }
    });
  }

  private graphqlLoop(): Promise<void> {
    return this.paced(async (n) => {
      const name = `rolling-run-${n}`;
      const body = await this.send('POST /graphql createRun', '/graphql', { authorization: `Bearer ${ADMIN_KEY}` }, {
        query: 'mutation Write($input: CreateRunInput!) { createRun(input: $input) { id name } }',
        variables: { input: { entity: 'trellis', project: 'default', name } },
      });
      const run = (body as { data?: { createRun?: { id: string; name: string } } } | undefined)?.data?.createRun;
      if (run) this.runs.set(run.id, run.name);
      else if (body) this.failures.push({ at: Date.now(), request: 'POST /graphql createRun', status: 200, body });
    });
  }

  /** One request; its JSON body when it succeeded (2xx, and no GraphQL errors), else undefined with the failure kept. */
  private async send(request: string, path: string, headers: Record<string, string>, payload: unknown): Promise<unknown> {
    this.requests++;
    try {
      const response = await fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      if (response.ok && !(body as { errors?: unknown }).errors) return body;
      this.failures.push({ at: Date.now(), request, status: response.status, retryAfter: response.headers.get('retry-after'), body });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      this.failures.push({ at: Date.now(), request, error: `${(error as Error).message}${cause ? `: ${cause.code ?? cause.message}` : ''}` });
    }
    return undefined;
  }
}

/** Every acknowledged write, read back through the front balancer; returns what is missing. */
export async function lostWrites(url: string, writer: Writer): Promise<{ calls: string[]; ends: string[]; runs: string[] }> {
  const response = await fetch(`${url}/traces/calls/stream_query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basic },
    body: JSON.stringify({ project_id: PROJECT }),
  });
  if (!response.ok) throw new Error(`reading the calls back: HTTP ${response.status} ${await response.text()}`);
  const stored = new Map<string, { ended_at: string | null }>();
  for (const line of (await response.text()).split('\n')) {
    if (!line.trim()) continue;
    const call = JSON.parse(line) as { id: string; ended_at: string | null };
    stored.set(call.id, call);
  }
  const calls = [...writer.startedCalls].filter((id) => !stored.has(id));
  const ends = [...writer.endedCalls].filter((id) => !stored.get(id)?.ended_at);

  const runs: string[] = [];
  const ids = [...writer.runs.keys()];
  for (let offset = 0; offset < ids.length; offset += 40) {
    const chunk = ids.slice(offset, offset + 40);
    const query = `{ ${chunk.map((id, index) => `r${index}: run(id: ${JSON.stringify(id)}) { id name }`).join(' ')} }`;
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ query }),
    });
    const body = (await answer.json()) as { data?: Record<string, { id: string; name: string } | null>; errors?: unknown };
    if (body.errors) throw new Error(`reading the runs back: ${JSON.stringify(body.errors)}`);
    chunk.forEach((id, index) => {
      if (body.data?.[`r${index}`]?.name !== writer.runs.get(id)) runs.push(id);
    });
  }
  return { calls, ends, runs };
}
