import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { startOf, traces } from './helpers.js';

/**
 * Monitors under ingestion volume: what the consumer records at once is not bounded by the calls' count (a batch of
 * events can name thousands of calls), and single `/call/end` requests sent concurrently are each scored once.
 * Real HTTP (REST ingestion as the Weave SDKs send it, GraphQL for the monitor), real PostgreSQL.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => {
  await platform?.close();
});

const CREATE = `mutation($entity: String!, $project: String!, $input: MonitorInput!) { createMonitor(entity: $entity, project: $project, input: $input) { id } }`;
const STATS = `query($entity: String!, $name: String!) { project(entity: $entity, name: $name) { monitors { id stats { scored skippedBySampling failed meanScore } } } }`;

interface Stats {
  scored: number;
  skippedBySampling: number;
  failed: number;
  meanScore: number | null;
}

async function createMonitor(project: string, input: Record<string, unknown>): Promise<string> {
  const created = await platform.graphql('mutation($name: String!) { createProject(entity: "trellis", name: $name) { fullName } }', { name: project });
  expect(created.body.errors).toBeUndefined();
  const { body } = await platform.graphql(CREATE, { entity: 'trellis', project, input });
  expect(body.errors).toBeUndefined();
  return body.data.createMonitor.id;
}

/** Waits (generously: this is about volume on a shared machine) until the monitor has looked at `total` calls. */
async function settled(project: string, id: string, total: number): Promise<Stats> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const { body } = await platform.graphql(STATS, { entity: 'trellis', name: project });
    expect(body.errors).toBeUndefined();
    const stats: Stats = body.data.project.monitors.find((monitor: { id: string }) => monitor.id === id).stats;
    if (stats.scored + stats.skippedBySampling + stats.failed >= total || Date.now() > deadline) return stats;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** How many score feedback rows of the monitor the project has (the feedback aggregate's count for its scorer). */
async function feedbackCount(projectId: string, monitorName: string): Promise<number> {
  const response = await traces(platform, '/feedback/aggregate', {
    project_id: projectId,
    after_ms: Date.now() - 3_600_000,
    before_ms: Date.now() + 60_000,
    group_by: ['scorer_id'],
  });
  expect(response.status).toBe(200);
  const buckets = response.body.buckets as { group: { scorer_id: string }; total_count: number }[];
  return buckets.filter((bucket) => bucket.group.scorer_id === monitorName).reduce((sum, bucket) => sum + bucket.total_count, 0);
}

const end = (projectId: string, id: string, output: string) => ({ end: { project_id: projectId, id, ended_at: new Date().toISOString(), output, summary: {} } });

describe('monitor consumer volume', () => {
  it('scores one /call/upsert_batch of 3,000 ended calls: each call once, with its feedback', async () => {
    const project = 'monitor-volume-batch';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, { name: 'even', samplingRate: 1, scorer: { kind: 'REGEX', pattern: '[02468]$' } });
    const ids = Array.from({ length: 3_000 }, (_, index) => `b-${index}`);
    const batch = [
      ...ids.map((id) => ({ mode: 'start', req: startOf(projectId, { id, trace_id: id }) })),
      ...ids.map((id, index) => ({ mode: 'end', req: end(projectId, id, `answer ${index}`) })),
    ];
    expect((await traces(platform, '/call/upsert_batch', { batch })).status).toBe(200);

    // 3,000 scored calls recorded at once: a statement with a parameter per column and row (23 per feedback row)
    // passes PostgreSQL's 65,535 bind parameters, and the consumer retried that batch forever, scoring nothing more.
    expect(await settled(project, monitor, ids.length)).toEqual({ scored: 3_000, skippedBySampling: 0, failed: 0, meanScore: 0.5 });
    expect(await feedbackCount(projectId, 'even')).toBe(3_000);
  });

  it('scores 300 calls ended by concurrent single /call/end requests, each once, and answers each end only once it is stored', async () => {
    const project = 'monitor-volume-ends';
    const projectId = `trellis/${project}`;
    const monitor = await createMonitor(project, { name: 'even', samplingRate: 1, scorer: { kind: 'REGEX', pattern: '[02468]$' } });
    const ids = Array.from({ length: 300 }, (_, index) => `e-${index}`);
    const starts = ids.map((id) => ({ mode: 'start', req: startOf(projectId, { id, trace_id: id }) }));
    expect((await traces(platform, '/call/upsert_batch', { batch: starts })).status).toBe(200);

    // 300 requests at once (ended concurrently they share flushes: one statement and one event per flush), and
    // each call's end read back as soon as its own request is answered.
    const read = await Promise.all(
      ids.map(async (id, index) => {
        expect((await traces(platform, '/call/end', end(projectId, id, `answer ${index}`))).status).toBe(200);
        const call = await traces(platform, '/call/read', { project_id: projectId, id });
        return call.body.call.output;
      }),
    );
    expect(read).toEqual(ids.map((_, index) => `answer ${index}`));

    expect(await settled(project, monitor, ids.length)).toEqual({ scored: 300, skippedBySampling: 0, failed: 0, meanScore: 0.5 });
    expect(await feedbackCount(projectId, 'even')).toBe(300);
  });
});
