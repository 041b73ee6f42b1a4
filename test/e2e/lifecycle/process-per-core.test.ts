import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandInUpstream, type StandInUpstream } from '../../../bench/inference-stand-in-upstream.js';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { compiledEntry, spawnEntry, waitForHttp, waitForOutput, type NodeProcess } from '../../support/processes.js';

/**
 * `npm start` with a process per core (TRELLIS_PROCESSES=2, embedded PostgreSQL): a primary owning PostgreSQL forks
 * two platform processes sharing the port. Each request here goes over a new connection, and node:cluster hands
 * each new connection to the next process, so consecutive requests reach both processes.
 */
const KEY = 'cluster-bootstrap-key-0123456789';
const UPSTREAM_DELAY_MS = 400;
let dataDir: string;
let upstream: StandInUpstream;
let platform: NodeProcess;
let url: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-cluster-'));
  upstream = await startStandInUpstream({ name: 'slow', delayMs: UPSTREAM_DELAY_MS });
  const port = await freePort();
  platform = spawnEntry('server/main.ts', [], {
    TRELLIS_DATA_DIR: dataDir,
    PORT: String(port),
    TRELLIS_BOOTSTRAP_API_KEY: KEY,
    DATABASE_URL: '',
    TRELLIS_PROCESSES: '2',
    TRELLIS_EMBEDDED_MODEL: 'off',
    // One request in flight per key, for the whole platform.
    TRELLIS_INFERENCE_KEY_CONCURRENCY: '1',
  });
  url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, platform, 120_000);
  await waitForOutput(platform, 'Trellis is running at');
}, 180_000);

afterAll(async () => {
  if (platform && platform.child.exitCode === null) {
    platform.kill('SIGKILL');
    await platform.exited;
  }
  await upstream?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** One request on a connection of its own (so node:cluster picks the next process for it). */
function request(method: string, pathname: string, body?: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${url}${pathname}`,
      {
        method,
        agent: false,
        headers: { authorization: `Bearer ${KEY}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const chat = (model: string) => request('POST', '/inference/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });

/** The platform processes the primary forked (its node children; PostgreSQL's processes are children too). */
function platformProcesses(): number[] {
  const pid = platform.child.pid!;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(compiledEntry('server/main.ts'));
    } catch {
      return false; // exited meanwhile
    }
  });
}

async function until<T>(what: string, read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})\n${platform.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The platform's count, summed over its processes' series (each has its own, labelled `process`). */
function metricCount(text: string, route: string, status: string): number {
  const lines = text.split('\n').filter((candidate) => candidate.startsWith(`trellis_http_request_duration_seconds_count{method="GET",route="${route}",status="${status}",`));
  return lines.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('npm start with a process per core', () => {
  it('serves one port from two platform processes and says so', () => {
    expect(platform.output()).toContain(`Trellis is running at ${url}  (2 processes, one port)`);
    expect(platformProcesses()).toHaveLength(2);
  });

  it('serves a model registered through one process from every process at once', async () => {
    const registered = await request('POST', '/graphql', {
      query: 'mutation($d: InferenceModelDefinitionInput!) { registerInferenceModel(definition: $d) { id } }',
      variables: { d: { id: 'slow-model', backend: 'OPENAI_COMPATIBLE', deployments: [{ baseUrl: upstream.baseUrl }] } },
    });
    expect(JSON.parse(registered.text).errors).toBeUndefined();
    // Sequential, each on a new connection: half of them reach the process that did not register the model.
    for (let attempt = 0; attempt < 4; attempt++) {
      const answer = await chat('slow-model');
      expect(answer.status, answer.text).toBe(200);
    }
  });

  it('counts the model limits for the platform, not per process', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => chat('slow-model')));
    const statuses = answers.map((answer) => answer.status).sort();
    // Counted per process, each of the two would have admitted one.
    expect(statuses).toEqual([200, 429, 429, 429]);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.text).error.message).toBe('Concurrency limit reached for requests (API key)');
  });

  it('reports every process in /metrics, whichever process answers the scrape', async () => {
    const before = metricCount((await request('GET', '/metrics')).text, '/healthz', '200');
    for (let index = 0; index < 6; index++) expect((await request('GET', '/healthz')).status).toBe(200);
    for (let scrape = 0; scrape < 2; scrape++) {
      const after = metricCount((await request('GET', '/metrics')).text, '/healthz', '200');
      expect(after - before).toBe(6);
    }
  });

  it('starts a process that died again, releasing what its requests held', async () => {
    upstream.setMode('hang');
    const received = upstream.requests.length;
    const hanging = chat('slow-model').catch(() => undefined); // its process is killed under it
    await until('the upstream to receive the request', () => upstream.requests.length, (count) => count > received);
    const before = platformProcesses();
    for (const pid of before) process.kill(pid, 'SIGKILL');
    await hanging;
    upstream.setMode('ok');
    const after = await until('both processes to be started again', platformProcesses, (pids) => pids.length === 2 && pids.every((pid) => !before.includes(pid)));
    expect(after).toHaveLength(2);
    await waitForHttp(`${url}/healthz`, platform, 60_000);
    // The killed request's admission was released with its process: the key may send again.
    for (let attempt = 0; attempt < 2; attempt++) {
      // Refused connections (no process listening yet) and 503s (one still starting) are retried.
      const answer = await until('a restarted process to answer', () => chat('slow-model').catch(() => ({ status: 0, text: '' })), (result) => result.status !== 0 && result.status !== 503);
      expect(answer.status, answer.text).toBe(200);
    }
  }, 90_000);

  it('stops every process and PostgreSQL on SIGTERM, also one still starting again after a death', async () => {
    // One process dies; SIGTERM comes once its replacement is forked, while that one is still starting up
    // (seconds: it connects, migrates and builds the graph), so it dies of the signal before it can drain.
    const [victim, survivor] = platformProcesses();
    process.kill(victim!, 'SIGKILL');
    const processes = await until('the dead process to be forked again', platformProcesses, (pids) => pids.length === 2 && !pids.includes(victim!));
    expect(processes).toContain(survivor);
    platform.kill('SIGTERM');
    expect(await platform.exited, platform.output()).toBe(0);
    for (const pid of processes) expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 60_000);
});
