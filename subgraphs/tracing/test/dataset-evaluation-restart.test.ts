import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { spawnEntry, waitForOutput, type NodeProcess } from '../../../test/support/processes.js';
import { eventually } from '../../automations/test/helpers.js';
import { ABANDONED_REASON, STOPPED_REASON } from '../dataset-evaluation/evaluation-runner.js';

/**
 * What happens to platform-run evaluation runs in flight when their process goes away: they are not resumed (the
 * caller's identity they ask models as is never stored), and they never stay RUNNING. A process that stops finishes
 * them as ERROR (STOPPED_REASON) before it exits; the runs of a process SIGKILLed mid-run are finished as ERROR
 * (ABANDONED_REASON) by another process's sweep once their heartbeat is TRELLIS_EVALUATION_STALE_SECONDS old. The
 * predictions recorded before stay.
 */
const PROJECT = 'restarts';
const P = `trellis/${PROJECT}`;
const ROWS = 30;
const platforms: TestPlatform[] = [];
const processes: NodeProcess[] = [];

afterAll(async () => {
  for (const platform of platforms) await platform.close().catch(() => undefined);
  for (const child of processes) {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.kill('SIGTERM');
      await child.exited;
    }
  }
});

async function graphql(url: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** A project with a dataset of ROWS prompts that make long answers, and an evaluation of it against two models started. */
async function startEvaluation(url: string): Promise<string[]> {
  await graphql(url, `mutation { createProject(entity: "trellis", name: "${PROJECT}") { fullName } }`);
  const now = new Date().toISOString();
  const batch = Array.from({ length: ROWS }, (_, index) => [
    { mode: 'start', req: { start: { project_id: P, id: `q-${index}`, op_name: 'ask', started_at: now, attributes: {}, inputs: { question: `Count from ${index} to ${index + 40}.` } } } },
    { mode: 'end', req: { end: { project_id: P, id: `q-${index}`, ended_at: now, output: 'x', summary: {} } } },
  ]).flat();
  const upserted = await fetch(`${url}/traces/call/upsert_batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ batch }),
  });
  expect(upserted.status).toBe(200);
  await graphql(url, `mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version } }`, {
    input: { projectId: P, dataset: 'counts', callIds: Array.from({ length: ROWS }, (_, index) => `q-${index}`), columns: [{ name: 'question', source: 'inputs.question' }, { name: 'expected', source: 'output' }] },
  });
  const started = await graphql(url, `mutation($input: DatasetEvaluationInput!) { evaluateDataset(entity: "trellis", project: "${PROJECT}", input: $input) { runs { id } } }`, {
    input: { dataset: 'counts', models: ['trellis-tiny', 'trellis-tiny'], promptColumn: 'question', maxTokens: 128, scorers: [{ name: 'exact', scorer: { kind: 'EQUALS' } }] },
  });
  return started.evaluateDataset.runs.map((run: { id: string }) => run.id);
}

const SUMMARY = `query($id: String!) { project(entity: "trellis", name: "${PROJECT}") { evaluationRunSummary(id: $id) { status exception exampleCount } } }`;

/** Waits until the run has recorded at least one example (it is in flight). */
async function inFlight(url: string, id: string): Promise<void> {
  await eventually(async () => {
    const run = (await graphql(url, SUMMARY, { id })).project.evaluationRunSummary;
    expect(run.status).toBe('RUNNING');
    return run.exampleCount >= 1 ? true : undefined;
  }, 60_000);
}

describe('evaluation runs in flight when their process goes away', () => {
  it('a stopping process finishes its runs as errors; a restarted platform shows them so', async () => {
    const databaseUrl = await createTestDatabase('evaluation_stop');
    const first = await startTestPlatform({ databaseUrl });
    platforms.push(first);
    const runs = await startEvaluation(first.url);
    await inFlight(first.url, runs[0]!);
    await first.close();

    const restarted = await startTestPlatform({ databaseUrl });
    platforms.push(restarted);
    for (const id of runs) {
      const run = (await graphql(restarted.url, SUMMARY, { id })).project.evaluationRunSummary;
      expect(run).toMatchObject({ status: 'ERROR', exception: STOPPED_REASON });
      expect(run.exampleCount).toBeLessThan(ROWS);
      // The stop is not the model's failure: no example was recorded as a failed prediction while the process stopped.
      const read = await fetch(`${restarted.url}/traces/call/read`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({ project_id: P, id }),
      });
      const { call } = (await read.json()) as { call: { output: { examples: number; failed_predictions: number } } };
      expect(call.output).toMatchObject({ examples: run.exampleCount, failed_predictions: 0 });
    }
  }, 120_000);

  it("another process finishes a SIGKILLed process's runs as errors once their heartbeat is stale", async () => {
    const databaseUrl = await createTestDatabase('evaluation_kill');
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-evaluation-kill-'));
    const env = { TRELLIS_EVALUATION_STALE_SECONDS: '3' };
    const child = spawnEntry('server/main.ts', [], { DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY, TRELLIS_DATA_DIR: dataDir, ...env });
    processes.push(child);
    await waitForOutput(child, 'Trellis is running at');
    const url = /Trellis is running at (http:\/\/\S+)/.exec(child.output())![1]!;
    const runs = await startEvaluation(url);
    await inFlight(url, runs[0]!);
    child.kill('SIGKILL');
    expect(await child.exited).toBe('SIGKILL');

    const survivor = await startTestPlatform({ databaseUrl, env });
    platforms.push(survivor);
    for (const id of runs) {
      const run = await eventually(async () => {
        const read = (await graphql(survivor.url, SUMMARY, { id })).project.evaluationRunSummary;
        return read.status === 'RUNNING' ? undefined : read;
      }, 30_000);
      expect(run).toMatchObject({ status: 'ERROR', exception: ABANDONED_REASON });
      expect(run.exampleCount).toBeGreaterThanOrEqual(id === runs[0] ? 1 : 0);
      expect(run.exampleCount).toBeLessThan(ROWS);
    }
  }, 180_000);
});
