import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SECRET_SETTINGS } from '../../platform/config.js';

/** Secrets given as files (`<NAME>_FILE`, as Docker and Kubernetes mount them) instead of environment values. */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-secret-files-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('<NAME>_FILE settings', () => {
  it('read each secret setting from its file, without the trailing newline, into the configuration every subgraph reads', async () => {
    const files: Record<string, string> = {};
    const values: Record<string, string> = {
      DATABASE_URL: 'postgres://trellis:pw@db:5432/trellis',
      TRELLIS_INTERNAL_SECRET: 'internal-0123456789',
      TRELLIS_SECRET_KEY: 'a'.repeat(64),
      TRELLIS_BOOTSTRAP_API_KEY: 'bootstrap-key-0123456789',
    };
    for (const name of SECRET_SETTINGS) {
      files[`${name}_FILE`] = path.join(dir, name);
      await writeFile(files[`${name}_FILE`]!, `${values[name]}\n`);
    }
    const config = loadConfig(files);
    expect(config.databaseUrl).toBe(values.DATABASE_URL);
    expect(config.internalSecret).toBe(values.TRELLIS_INTERNAL_SECRET);
    expect(config.bootstrap?.apiKey).toBe(values.TRELLIS_BOOTSTRAP_API_KEY);
    expect(config.env.TRELLIS_SECRET_KEY).toBe(values.TRELLIS_SECRET_KEY);
  });

  it('refuse a file that cannot be read, an empty one, and a value given both ways', async () => {
    expect(() => loadConfig({ TRELLIS_INTERNAL_SECRET_FILE: path.join(dir, 'missing') })).toThrow(/TRELLIS_INTERNAL_SECRET_FILE: cannot read .*missing \(ENOENT\)/);
    await writeFile(path.join(dir, 'empty'), '');
    expect(() => loadConfig({ TRELLIS_SECRET_KEY_FILE: path.join(dir, 'empty') })).toThrow(ConfigError);
    await writeFile(path.join(dir, 'secret'), 'x'.repeat(30));
    expect(() => loadConfig({ TRELLIS_INTERNAL_SECRET: 'y', TRELLIS_INTERNAL_SECRET_FILE: path.join(dir, 'secret') })).toThrow(/both set/);
  });
});
