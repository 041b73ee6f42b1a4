import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { TracingServices } from '../services.js';
import { startOf, traces } from './helpers.js';

/**
 * Traces are kept as long as their project says (Project.traceRetentionDays, set by its admins), else the platform
 * default (TRELLIS_TRACE_RETENTION_DAYS). The retention worker deletes a trace whole, with the feedback on its calls,
 * once its root call started longer ago (a trace without a recorded root: once its earliest call did), in batches.
 * The worker's own schedule is an hour here: the test runs its sweep itself.
 */
const BATCH = 5;
const DAY_MS = 24 * 60 * 60 * 1000;
let platform: TestPlatform;
let services: TracingServices;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: {
      TRELLIS_TRACE_RETENTION_DAYS: '30',
      TRELLIS_RETENTION_BATCH_SIZE: String(BATCH),
      TRELLIS_RETENTION_INTERVAL_MS: '3600000',
      TRELLIS_RETENTION_PAUSE_MS: '1',
    },
  });
  services = platform.subgraphs.get('tracing')!.services as TracingServices;
});
afterAll(async () => {
  await platform?.close();
});

const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

/** Writes calls through the REST route the Weave SDK uses, each `[id, trace, parent, started days ago]`. */
async function writeCalls(projectId: string, calls: [string, string, string | null, number][]): Promise<void> {
  const batch = calls.map(([id, trace, parent, age]) => ({
    mode: 'start',
    req: startOf(projectId, { id, trace_id: trace, parent_id: parent, started_at: daysAgo(age) }),
  }));
  const response = await traces(platform, '/call/upsert_batch', { batch });
  expect(response.status).toBe(200);
}

async function giveFeedback(projectId: string, callId: string): Promise<void> {
  const response = await traces(platform, '/feedback/create', {
    project_id: projectId,
    weave_ref: `weave:///${projectId}/call/${callId}`,
    feedback_type: 'wandb.reaction.1',
    payload: { emoji: '👍' },
  });
  expect(response.status).toBe(200);
}

async function callIds(projectId: string): Promise<string[]> {
  const response = await traces(platform, '/calls/query', { project_id: projectId, limit: 1000 });
  return (response.body.calls as { id: string }[]).map((call) => call.id).sort();
}

async function feedbackRefs(projectId: string): Promise<string[]> {
  const response = await traces(platform, '/feedback/query', { project_id: projectId, limit: 1000 });
  return (response.body.result as { weave_ref: string }[]).map((row) => row.weave_ref.split('/').at(-1)!).sort();
}

const SET = `mutation($entity: String!, $project: String!, $days: Int) {
  setTraceRetention(entity: $entity, project: $project, days: $days) { entity name traceRetentionDays traceRetentionEffectiveDays }
}`;
const READ = `query($entity: String!, $name: String!) { project(entity: $entity, name: $name) { traceRetentionDays traceRetentionEffectiveDays } }`;

describe('the project setting', () => {
  it('is the platform default until a project admin sets it, and back to it with null', async () => {
    const read = await platform.graphql(READ, { entity: 'trellis', name: 'default' });
    expect(read.body).toEqual({ data: { project: { traceRetentionDays: null, traceRetentionEffectiveDays: 30 } } });

    const set = await platform.graphql(SET, { entity: 'trellis', project: 'default', days: 90 });
    expect(set.body).toEqual({ data: { setTraceRetention: { entity: 'trellis', name: 'default', traceRetentionDays: 90, traceRetentionEffectiveDays: 90 } } });
    expect((await platform.graphql(READ, { entity: 'trellis', name: 'default' })).body.data.project.traceRetentionDays).toBe(90);

    const teamAdmin = await platform.createUser('retention-admin', { trellis: 'ADMIN' });
    const reset = await platform.graphql(SET, { entity: 'trellis', project: 'default', days: null }, teamAdmin.key);
    expect(reset.body.data.setTraceRetention).toMatchObject({ traceRetentionDays: null, traceRetentionEffectiveDays: 30 });
  });

  it('refuses zero, negative and absurd retentions (BAD_USER_INPUT) and non-admins (FORBIDDEN), changing nothing', async () => {
    expect((await platform.graphql(SET, { entity: 'trellis', project: 'default', days: 14 })).body.errors).toBeUndefined();
    for (const days of [0, -3, 36_501, 1_000_000]) {
      const { body } = await platform.graphql(SET, { entity: 'trellis', project: 'default', days });
      expect(body.data).toBeNull();
      expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['days'] });
      expect(body.errors[0].message).toContain('between 1 and 36500');
    }
    const member = await platform.createUser('retention-member', { trellis: 'MEMBER' });
    const outsider = await platform.createUser('retention-outsider');
    for (const key of [member.key, outsider.key]) {
      const { body } = await platform.graphql(SET, { entity: 'trellis', project: 'default', days: 1 }, key);
      expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    // A member may read it; someone outside the team may not.
    expect((await platform.graphql(READ, { entity: 'trellis', name: 'default' }, member.key)).body.data.project.traceRetentionDays).toBe(14);
    expect((await platform.graphql(READ, { entity: 'trellis', name: 'default' }, outsider.key)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await platform.graphql(READ, { entity: 'trellis', name: 'default' })).body.data.project.traceRetentionDays).toBe(14);
    expect((await platform.graphql(SET, { entity: 'trellis', project: 'default', days: null })).body.errors).toBeUndefined();
  });
});

describe('the retention worker', () => {
  it('deletes whole traces past their project retention with their feedback, in batches, and nothing else', async () => {
    const P = 'trellis/default'; // the platform default: 30 days
    const old = Array.from({ length: 12 }, (_, i) => `old-${String(i).padStart(2, '0')}`);
    await writeCalls(P, [
      ...old.flatMap((root): [string, string, string | null, number][] => [
        [root, `t-${root}`, null, 40],
        [`${root}-child`, `t-${root}`, root, 40],
      ]),
      // A long trace: its root is past the retention, a child started recently goes with it.
      [`old-00-late-child`, 't-old-00', 'old-00', 1],
      // A trace whose root was never recorded: it goes by its earliest call.
      ['orphan-early', 't-orphan', 'never-recorded', 35],
      ['orphan-late', 't-orphan', 'never-recorded', 2],
      // Inside the retention.
      ['recent', 't-recent', null, 10],
      ['recent-child', 't-recent', 'recent', 10],
      // A trace whose root is inside the retention keeps a child that (by clock skew) says it started earlier.
      ['young-root', 't-young', null, 29],
      ['skewed-child', 't-young', 'young-root', 31],
    ]);
    for (const id of ['old-00', 'old-01-child', 'orphan-early', 'recent', 'recent-child']) await giveFeedback(P, id);

    const S = 'trellis/short'; // its own retention: 7 days
    await writeCalls(S, [
      ['short-old-1', 'ts-1', null, 10],
      ['short-old-1-child', 'ts-1', 'short-old-1', 10],
      ['short-old-2', 'ts-2', null, 8],
      ['short-recent', 'ts-3', null, 3],
    ]);
    await giveFeedback(S, 'short-old-2');
    await giveFeedback(S, 'short-recent');
    expect((await platform.graphql(SET, { entity: 'trellis', project: 'short', days: 7 })).body.errors).toBeUndefined();

    // Calls of which only the end arrived: the one recorded before the cutoff goes (with its feedback).
    for (const id of ['end-only-old', 'end-only-recent']) {
      const ended = await traces(platform, '/call/end', { end: { project_id: P, id, ended_at: daysAgo(0), summary: {}, output: null } });
      expect(ended.status).toBe(200);
    }
    await giveFeedback(P, 'end-only-old');
    await sql`update tracing.calls set created_at = now() - interval '45 days' where project_id = ${P} and id = 'end-only-old'`.execute(platform.db.root);

    // An object of the project is no trace: untouched.
    const object = await traces(platform, '/obj/create', { obj: { project_id: P, object_id: 'kept-object', val: { a: 1 } } });
    expect(object.status).toBe(200);

    const result = await services.traceRetentionWorker.sweep();
    // 13 deciding calls in the default project (12 roots, 1 rootless trace) in batches of 5, then 1 call without a
    // start; 2 roots in `short`, and no call without a start there (each pass ends with a batch smaller than 5).
    expect(result).toEqual({ deleted: 16, batches: Math.ceil(13 / BATCH) + 1 + 1 + 1 });

    expect(await callIds(P)).toEqual(['end-only-recent', 'recent', 'recent-child', 'skewed-child', 'young-root']);
    expect(await feedbackRefs(P)).toEqual(['recent', 'recent-child']);
    expect(await callIds(S)).toEqual(['short-recent']);
    expect(await feedbackRefs(S)).toEqual(['short-recent']);
    const read = await traces(platform, '/obj/read', { project_id: P, object_id: 'kept-object', digest: 'latest' });
    expect(read.status).toBe(200);

    // Nothing left past the retention: a second sweep deletes nothing.
    expect((await services.traceRetentionWorker.sweep()).deleted).toBe(0);
  });
});
