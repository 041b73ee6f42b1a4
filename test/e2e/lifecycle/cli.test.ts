import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import { spawnEntry } from '../../support/processes.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/** The operator CLI against the same database as a running platform; the key it prints works at once. */
let databaseUrl: string;
let platform: TestPlatform;

async function cli(...args: string[]): Promise<{ code: number | string; output: string }> {
  const run = spawnEntry('cli/index.ts', args, { DATABASE_URL: databaseUrl });
  const code = await run.exited;
  return { code, output: run.output() };
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  platform = await startTestPlatform({ databaseUrl, workers: false });
}, 120_000);
afterAll(() => platform?.close());

describe('npm run cli', () => {
  it('creates users, teams, projects and keys that the platform accepts', async () => {
    expect((await cli('user', 'create', 'carol', '--email', 'carol@example.com')).code).toBe(0);
    expect((await cli('team', 'create', 'research', '--owner', 'carol')).code).toBe(0);
    expect((await cli('user', 'create', 'dave')).code).toBe(0);
    expect((await cli('team', 'add-member', 'research', 'dave', '--role', 'MEMBER')).code).toBe(0);
    expect((await cli('project', 'create', 'research', 'vision')).code).toBe(0);
    const created = await cli('key', 'create', 'dave', '--name', 'ci');
    expect(created.code).toBe(0);
    const { key, id } = JSON.parse(created.output.slice(created.output.indexOf('{')));
    const { body } = await platform.graphql('{ viewer { username } team(name: "research") { projects { fullName } members { username role } } }', undefined, key);
    expect(body.data).toEqual({
      viewer: { username: 'dave' },
      team: {
        projects: [{ fullName: 'research/vision' }],
        members: [
          { username: 'carol', role: 'ADMIN' },
          { username: 'dave', role: 'MEMBER' },
        ],
      },
    });
    const listed = await cli('key', 'list', 'dave');
    expect(listed.output).not.toContain(key);
    expect((await cli('key', 'revoke', id)).code).toBe(0);
  }, 120_000);

  it('explains bad commands and refuses duplicates without changing anything', async () => {
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/unknown command[\s\S]*usage: npm run cli/);
    const duplicate = await cli('user', 'create', 'carol');
    expect(duplicate.code).toBe(1);
    expect(duplicate.output).toMatch(/User "carol" already exists/);
    const badName = await cli('project', 'create', 'research', 'no spaces');
    expect(badName.output).toMatch(/Project name "no spaces" is invalid/);
  }, 60_000);
});
