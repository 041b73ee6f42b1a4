import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { startEmbeddedPostgres } from '../../platform/db/embedded-postgres.js';

/** An operator tunes the embedded PostgreSQL (or turns on its statement statistics) with TRELLIS_POSTGRES_SETTINGS. */
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('TRELLIS_POSTGRES_SETTINGS', () => {
  it('takes name=value pairs separated by spaces and refuses anything else at start-up', () => {
    expect(loadConfig({ TRELLIS_POSTGRES_SETTINGS: ' work_mem=16MB  pg_stat_statements.track=all ' }).postgresSettings).toEqual([
      'work_mem=16MB',
      'pg_stat_statements.track=all',
    ]);
    expect(loadConfig({}).postgresSettings).toEqual([]);
    for (const bad of ['work_mem = 16MB', 'work_mem', '=16MB', 'work-mem=1', '-c=1']) {
      expect(() => loadConfig({ TRELLIS_POSTGRES_SETTINGS: bad }), bad).toThrow(ConfigError);
    }
  });

  it('applies them to the embedded server', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-pg-settings-'));
    await chmod(dir, 0o755); // as root, the server runs as the postgres OS user: it must reach the data directory
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), ephemeral: true, settings: ['work_mem=7MB'] });
    const client = new pg.Client({ connectionString: server.url });
    try {
      await client.connect();
      expect((await client.query<{ work_mem: string }>('show work_mem')).rows[0]!.work_mem).toBe('7MB');
    } finally {
      await client.end();
      await server.stop();
    }
  }, 60_000);
});
