import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import { spawnEntry } from '../../support/processes.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/** The operator CLI against the same database as a running platform; the key it prints works at once. */
let databaseUrl: string;
let platform: TestPlatform;

async function cli(...args: string[]): Promise<{ code: number | string; output: string }> {
  return cliWith({}, undefined, ...args);
}

async function cliWith(env: Record<string, string>, input: string | undefined, ...args: string[]) {
  const run = spawnEntry('cli/index.ts', args, { DATABASE_URL: databaseUrl, ...env }, { input });
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
    expect(duplicate.output).toMatch(/The name "carol" is taken by the user "carol": user and team names share one namespace and are unique ignoring case/);
    const caseVariant = await cli('team', 'create', 'Carol', '--owner', 'carol');
    expect(caseVariant.code).toBe(1);
    expect(caseVariant.output).toMatch(/The name "Carol" is taken by the user "carol"/);
    const badName = await cli('project', 'create', 'research', 'no spaces');
    expect(badName.output).toMatch(/Project name "no spaces" is invalid/);
  }, 60_000);

  it('answers --help, bad options and bad ids with one clear line and the same exit code for the same kind of failure', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/^usage: npm run cli/);
    // An option without its value: the usage, exit 2, no stack trace.
    for (const args of [['key', 'create', 'carol', '--name']]) {
      const bad = await cli(...args);
      expect({ args, code: bad.code }).toEqual({ args, code: 2 });
      expect(bad.output).toMatch(/^error: .+\n[\s\S]*usage: npm run cli/);
      expect(bad.output).not.toMatch(/\n\s+at /);
    }
    // Not found is exit 1 whatever the command; a malformed key id is not found, not PostgreSQL's cast error.
    for (const args of [['key', 'create', 'nobody'], ['team', 'add-member', 'research', 'nobody'], ['key', 'revoke', 'not-a-key-id']]) {
      const missing = await cli(...args);
      expect({ args, code: missing.code }).toEqual({ args, code: 1 });
      expect(missing.output).toMatch(/^error: .*(does not exist)/);
      expect(missing.output).not.toMatch(/invalid input syntax|\n\s+at /);
    }
    // The database cannot be reached: exit 3 saying so.
    const unreachable = await cliWith({ DATABASE_URL: 'postgres://trellis@127.0.0.1:1/trellis' }, undefined, 'key', 'list', 'carol');
    expect(unreachable.code).toBe(3);
    expect(unreachable.output).toMatch(/^error: cannot reach the database: .*ECONNREFUSED/);
  }, 60_000);

  it('configures automations through the running platform: secrets from standard input, any GraphQL operation', async () => {
    const env = { TRELLIS_URL: platform.url, TRELLIS_API_KEY: platform.adminKey };
    const secret = await cliWith(env, 'tok-0123456789-very-secret\n', 'secret', 'create', 'trellis', 'HOOK_TOKEN');
    expect(secret.code, secret.output).toBe(0);
    expect(secret.output).not.toContain('tok-0123456789-very-secret');
    const webhook = await cliWith(
      env,
      undefined,
      'graphql',
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { name } }',
      '--variables',
      JSON.stringify({ input: { team: 'trellis', name: 'ci-hook', endpointUrl: 'https://example.com/hook', accessTokenSecret: 'HOOK_TOKEN' } }),
    );
    expect(webhook.code, webhook.output).toBe(0);
    expect(JSON.parse(webhook.output.slice(webhook.output.indexOf('{')))).toEqual({ createWebhook: { name: 'ci-hook' } });
    const { body } = await platform.graphql('{ secrets(team: "trellis") { name } }');
    expect(body.data.secrets).toEqual([{ name: 'HOOK_TOKEN' }]);
    const denied = await cliWith({ ...env, TRELLIS_API_KEY: 'trl_wrong' }, 'x', 'secret', 'create', 'trellis', 'OTHER');
    expect(denied.code).toBe(1);
    expect(denied.output).toMatch(/API key/);
  }, 60_000);
});
