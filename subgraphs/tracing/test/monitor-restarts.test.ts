import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { spawnEntry, waitForOutput, type NodeProcess } from '../../../test/support/processes.js';

/**
 * A monitor never scores a call twice across restarts and processes: two platform processes (`server/main.ts`, each
 * its own OS process) on one database take call batches of a monitored project while their monitor consumers score
 * them; one is SIGKILLed in the middle of that and started again. In the end every ended call of the project has
 * exactly one score of the monitor, and the monitor's counts say so.
 */
const KEY = 'monitor-restarts-key-0123456789abcdef';
const PROJECT = 'kill-test';
const PROJECT_ID = `trellis/${PROJECT}`;
const processes: NodeProcess[] = [];
let databaseUrl: string;
let dataDir: string;

async function startPlatform(): Promise<{ process: NodeProcess; url: string }> {
  const child = spawnEntry('server/main.ts', [], {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    TRELLIS_BOOTSTRAP_API_KEY: KEY,
    TRELLIS_DATA_DIR: dataDir,
    TRELLIS_EMBEDDED_MODEL: 'off',
  });
  processes.push(child);
  await waitForOutput(child, 'Trellis is running at');
  return { process: child, url: /Trellis is running at (http:\/\/\S+)/.exec(child.output())![1]! };
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase('monitor_kill');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-monitor-kill-'));
}, 60_000);
afterAll(async () => {
  for (const child of processes) {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.kill('SIGTERM');
      await child.exited;
    }
  }
});

async function post(url: string, route: string, body: unknown): Promise<any> {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as any;
  if (response.status !== 200 || json.errors) throw new Error(`${route}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

const graphql = (url: string, query: string, variables: Record<string, unknown> = {}) => post(url, '/graphql', { query, variables }).then((body) => body.data);

function batchOf(ids: string[]) {
  const now = () => new Date().toISOString();
  return {
    batch: ids.flatMap((id) => [
      { mode: 'start', req: { start: { project_id: PROJECT_ID, id, op_name: 'answer', started_at: now(), attributes: {}, inputs: {} } } },
      { mode: 'end', req: { end: { project_id: PROJECT_ID, id, ended_at: now(), output: id.endsWith('0') ? 'ok' : 'no', summary: {} } } },
    ]),
  };
}

it('scores every ended call exactly once although a process was SIGKILLed while scoring', async () => {
  const a = await startPlatform();
  const b = await startPlatform();
  await graphql(a.url, `mutation { createProject(entity: "trellis", name: "${PROJECT}") { fullName } }`);
  const { createMonitor } = await graphql(a.url, `mutation($input: MonitorInput!) { createMonitor(entity: "trellis", project: "${PROJECT}", input: $input) { id } }`, {
    input: { name: 'ok', samplingRate: 1, scorer: { kind: 'REGEX', pattern: '^ok$' } },
  });
  // b hears of the monitor through the NOTIFY; a few hundred milliseconds is plenty.
  await new Promise((resolve) => setTimeout(resolve, 500));

  // 40 batches of 100 calls, alternately to a and b, 4 at a time; a is killed after the 12th was answered.
  let next = 0;
  let answered = 0;
  let killed = false;
  const send = async (lane: number) => {
    for (let batch = lane; batch < 40; batch += 4) {
      const ids = Array.from({ length: 100 }, () => `k-${++next}`);
      const target = batch % 2 === 0 && !killed ? a.url : b.url;
      try {
        await post(target, '/traces/call/upsert_batch', batchOf(ids));
      } catch {
        // A batch sent to a as it died: committed or not, the database says which (below).
      }
      if (++answered === 12 && !killed) {
        killed = true;
        a.process.kill('SIGKILL');
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(send));
  expect(await a.process.exited).toBe('SIGKILL');
  const restarted = await startPlatform();

  // Every ended call of the project, as the database has them.
  const query = await post(b.url, '/traces/calls/query', { project_id: PROJECT_ID, limit: 10_000, columns: ['id'] });
  const ended = (query.calls as { id: string }[]).map((call) => call.id).sort();
  expect(ended.length).toBeGreaterThan(2000);

  const deadline = Date.now() + 60_000;
  let stats: { scored: number; skippedBySampling: number; failed: number };
  for (;;) {
    const data = await graphql(restarted.url, `query { project(entity: "trellis", name: "${PROJECT}") { monitors { stats { scored skippedBySampling failed } } } }`);
    stats = data.project.monitors[0].stats;
    if (stats.scored >= ended.length || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(stats).toEqual({ scored: ended.length, skippedBySampling: 0, failed: 0 });
  const feedback = await post(b.url, '/traces/feedback/query', {
    project_id: PROJECT_ID,
    query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: 'wandb.runnable.ok' }] } },
    limit: 10_000,
  });
  const scoredIds = (feedback.result as { weave_ref: string }[]).map((row) => row.weave_ref.split('/').at(-1)!).sort();
  expect(scoredIds).toEqual(ended);
}, 180_000);
