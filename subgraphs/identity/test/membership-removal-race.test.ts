import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { spawnEntry, waitForOutput, type NodeProcess } from '../../../test/support/processes.js';

/**
 * Two platform processes on one database (as with a process per core): this test's own, and `npm start`'s entry run
 * as an OS process of its own, so a principal change reaches it only as it reaches real processes. A removal is in
 * force in both when removeTeamMember returns: the member is added and removed 100 times, with reads in flight in both
 * processes while each removal commits, and each time 16 concurrent readers per process read the team's calls on
 * /traces right after the mutation returned — every one of them is refused. Before removals waited for every process
 * to acknowledge, the other process kept serving its cached principal for a few milliseconds after the mutation
 * returned (and as long as it was paused: the next test).
 */
/**
 * 100 tries (3,200 reads right after a removal): 200 took 40–47 s of the suite's CPU; the paused-process test below
 * pins the mechanism down deterministically.
 */
const TRIES = 100;
const READERS_PER_PROCESS = 16;
const RACING_READERS_PER_PROCESS = 4;

/** What the tests need of a platform process: requests to it. */
type Platform = Pick<TestPlatform, 'fetch' | 'graphql'>;

let first: TestPlatform;
let secondProcess: NodeProcess;
let second: Platform;
let member: { userId: string; key: string };

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  first = await startTestPlatform({ databaseUrl, env: { TRELLIS_EMBEDDED_MODEL: 'off' }, workers: false });
  secondProcess = spawnEntry('server/main.ts', [], {
    DATABASE_URL: databaseUrl,
    PORT: '0',
    TRELLIS_EMBEDDED_MODEL: 'off',
    TRELLIS_DATA_DIR: `/tmp/trellis-removal-race-${process.pid}`,
  });
  await waitForOutput(secondProcess, 'http://127.0.0.1:');
  const url = secondProcess.output().match(/http:\/\/127\.0\.0\.1:\d+/)![0];
  const fetchPath = (path: string, init?: RequestInit) => fetch(`${url}${path}`, init);
  second = {
    fetch: fetchPath,
    async graphql(query, variables, key = first.adminKey) {
      const response = await fetchPath('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as any };
    },
  };
  member = await first.createUser('racer', { raceteam: 'MEMBER' });
}, 120_000);

afterAll(async () => {
  if (secondProcess?.child.pid) process.kill(secondProcess.child.pid, 'SIGCONT');
  secondProcess?.kill();
  await secondProcess?.exited;
  await first?.close();
});


function readCalls(platform: Platform): Promise<number> {
  return platform
    .fetch('/traces/calls/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`api:${member.key}`).toString('base64')}` },
      body: JSON.stringify({ project_id: 'raceteam/shared', limit: 1 }),
    })
    .then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    });
}

const setMember = (role: 'MEMBER' | null) =>
  first
    .graphql(
      role
        ? 'mutation { setTeamMember(team: "raceteam", username: "racer", role: MEMBER) { name } }'
        : 'mutation { removeTeamMember(team: "raceteam", username: "racer") }',
    )
    .then(({ body }) => expect(body.errors).toBeUndefined());

describe('removing a team member', () => {
  it('is in force in every process when the mutation returns (100 tries, 16 readers in each of two processes)', async () => {
    expect(await readCalls(second)).toBe(200);
    /** `count` concurrent reads in each process, started together. */
    const burst = (count: number) =>
      Promise.all([first, second].flatMap((platform) => Array.from({ length: count }, () => readCalls(platform))));
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      await setMember('MEMBER');
      // Both processes cache the member's principal with the team in it.
      expect([await readCalls(first), await readCalls(second)]).toEqual([200, 200]);
      // Readers in flight while the removal commits (their lookups race the change; whatever they answer, they began
      // before the mutation returned), then 16 concurrent readers in each process once it has returned.
      const racing = burst(RACING_READERS_PER_PROCESS);
      await setMember(null);
      const after = await burst(READERS_PER_PROCESS);
      expect({ attempt, notRefused: after.filter((status) => status !== 403).length }).toEqual({ attempt, notRefused: 0 });
      await racing;
    }
  }, 240_000);
});

describe('removing a team member while the other process is paused', () => {
  it('answers only once the paused process has applied it, and its first read afterwards is refused (10 tries)', async () => {
    const pid = secondProcess.child.pid!;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await setMember('MEMBER');
      expect(await readCalls(second)).toBe(200);
      // The other process stops (a long GC pause, a starved CPU) just as the change commits: it cannot apply it yet,
      // so the mutation must not answer yet (it did at once before, leaving that process's cache stale).
      process.kill(pid, 'SIGSTOP');
      let answered = false;
      const removal = setMember(null).then(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(pid, 'SIGCONT');
      expect({ attempt, answeredWhilePaused: answered }).toEqual({ attempt, answeredWhilePaused: false });
      await removal;
      expect({ attempt, status: await readCalls(second) }).toEqual({ attempt, status: 403 });
    }
  }, 120_000);
});

describe('a team keeps an admin', () => {
  it('refuses to remove or demote its last admin (CONFLICT), and allows it once another member is admin', async () => {
    const founder = await first.createUser('founder-admin', { solo: 'ADMIN' });
    await first.createUser('second-in-line', { solo: 'MEMBER' });
    const gql = (query: string) => first.graphql(query, {}, founder.key);
    // The platform admin created the team for the test: take it out, leaving the founder its only admin.
    expect((await first.graphql('mutation { removeTeamMember(team: "solo", username: "admin") }')).body.errors).toBeUndefined();

    const removeSelf = await gql('mutation { removeTeamMember(team: "solo", username: "founder-admin") }');
    expect(removeSelf.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(removeSelf.body.errors[0].message).toContain('last admin of team "solo"');
    const demoteSelf = await gql('mutation { setTeamMember(team: "solo", username: "founder-admin", role: MEMBER) { name } }');
    expect(demoteSelf.body.errors[0].extensions.code).toBe('CONFLICT');
    // Nothing changed.
    const members = await gql('{ team(name: "solo") { members { username role } } }');
    expect(members.body.data.team.members).toEqual(
      expect.arrayContaining([
        { username: 'founder-admin', role: 'ADMIN' },
        { username: 'second-in-line', role: 'MEMBER' },
      ]),
    );

    expect((await gql('mutation { setTeamMember(team: "solo", username: "second-in-line", role: ADMIN) { name } }')).body.errors).toBeUndefined();
    expect((await gql('mutation { removeTeamMember(team: "solo", username: "founder-admin") }')).body.data.removeTeamMember).toBe(true);
  });

  it('lets only one of two admins removing each other at once succeed', async () => {
    const alice = await first.createUser('duel-alice', { duel: 'ADMIN' });
    const bob = await first.createUser('duel-bob', { duel: 'ADMIN' });
    // The platform admin created the team for the test: take it out, so alice and bob are its only admins.
    expect((await first.graphql('mutation { removeTeamMember(team: "duel", username: "admin") }')).body.errors).toBeUndefined();
    const [byAlice, byBob] = await Promise.all([
      first.graphql('mutation { removeTeamMember(team: "duel", username: "duel-bob") }', {}, alice.key),
      second.graphql('mutation { removeTeamMember(team: "duel", username: "duel-alice") }', {}, bob.key),
    ]);
    const codes = [byAlice, byBob].map((result) => result.body.errors?.[0]?.extensions.code ?? 'OK').sort();
    expect(codes).toEqual(['CONFLICT', 'OK']);
    // The one left is the team's only member, and its admin.
    const seen = await Promise.all([alice, bob].map((user) => first.graphql('{ team(name: "duel") { members { username role } } }', {}, user.key)));
    const views = seen.map((result) => result.body.data?.team?.members ?? null).filter((members) => members !== null);
    expect(views).toHaveLength(1);
    expect(views[0]).toHaveLength(1);
    expect(views[0][0].role).toBe('ADMIN');
  });
});
