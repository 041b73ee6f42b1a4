import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { spawnEntry } from '../../support/processes.js';

/**
 * A misconfigured start says what is wrong in one line, PostgreSQL's own reason included, and exits 1 — no stack
 * trace, no "Trellis failed to start" without a reason (what an invalid TRELLIS_POSTGRES_SETTINGS printed), no
 * "getaddrinfo ENOTFOUND base" for a DATABASE_URL that is not a URL.
 */
async function start(env: Record<string, string>): Promise<{ code: number | string; lines: string[] }> {
  const run = spawnEntry('server/main.ts', [], { PORT: '0', ...env });
  const code = await run.exited;
  return { code, lines: run.output().trim().split('\n') };
}

describe('a misconfigured start', () => {
  it.each([
    ['DATABASE_URL that is not a URL', { DATABASE_URL: 'not-a-url' }, /DATABASE_URL must be a PostgreSQL URL/],
    ['DATABASE_URL that cannot be reached', { DATABASE_URL: 'postgres://trellis@127.0.0.1:1/trellis' }, /cannot reach the database \(DATABASE_URL\): connect ECONNREFUSED 127\.0\.0\.1:1/],
    ['a setting PostgreSQL refuses', { TRELLIS_POSTGRES_SETTINGS: 'shared_buffers=banana' }, /embedded PostgreSQL did not start: invalid value for parameter \\?"shared_buffers\\?": \\?"banana\\?"/],
  ])('%s: one line with the reason, exit 1', async (_what, env, reason) => {
    const dataDir = `/tmp/trellis-startup-errors-${process.pid}-${Object.keys(env)[0]}`;
    await rm(dataDir, { recursive: true, force: true });
    try {
      const { code, lines } = await start({ TRELLIS_DATA_DIR: dataDir, ...env });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      const entry = JSON.parse(lines[0]!);
      expect(entry.msg).toMatch(/^Trellis failed to start: /);
      expect(entry.msg).toMatch(reason);
      expect(entry.err).toBeUndefined();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('of a subgraph service (distributed topology): the same one line', async () => {
    const run = spawnEntry('server/serve-subgraph.ts', ['tracing'], {
      DATABASE_URL: 'postgres://trellis@127.0.0.1:1/trellis',
      TRELLIS_INTERNAL_SECRET: 'internal-secret-0123456789',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    expect(await run.exited).toBe(1);
    const lines = run.output().trim().split('\n');
    const entry = JSON.parse(lines.at(-1)!);
    expect(entry.msg).toMatch(/^Trellis failed to start: cannot reach the database \(DATABASE_URL\): connect ECONNREFUSED 127\.0\.0\.1:1/);
    expect(entry.err).toBeUndefined();
  }, 60_000);
});
