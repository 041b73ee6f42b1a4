import { parse } from 'yaml';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLATFORM_NODE_FLAGS } from '../../server/node-flags.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('the Node flags of platform processes (server/node-flags.ts)', () => {
  it('are the ones `npm start` and the image (every docker-compose service) run with', () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start!;
    const launch = /node ((?:--\S+ )*)dist\/server\/main\.js/.exec(start);
    expect(launch, 'npm start runs node … dist/server/main.js').not.toBeNull();
    expect(launch![1]!.trim().split(' ').filter(Boolean)).toEqual(PLATFORM_NODE_FLAGS);

    // The image runs every service as `node <flags> <script>`: the entry point is node with the flags, and each compose
    // service names only its script (a `node` of its own, or an entry point or NODE_OPTIONS of its own, would drop them).
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(read('Dockerfile'));
    expect(entrypoint, 'the Dockerfile has an exec-form ENTRYPOINT').not.toBeNull();
    expect(JSON.parse(entrypoint![1]!)).toEqual(['node', ...PLATFORM_NODE_FLAGS]);
    expect(read('Dockerfile')).toMatch(/^CMD \["dist\/server\/main\.js"\]$/m);
    expect(read('Dockerfile')).not.toMatch(/^ENV .*NODE_OPTIONS/m);
    const compose = read('docker-compose.yml');
    // The services built from the image (the `x-trellis` anchor: `build: .`); PostgreSQL and the balancer run their own.
    const services = (parse(compose, { merge: true }) as { services: Record<string, { build?: string; command?: string[] }> }).services;
    const commands = Object.values(services).filter((service) => service.build === '.').map((service) => service.command ?? []);
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command[0]).toMatch(/^dist\/server\/[\w-]+\.js$/);
    expect(compose).not.toMatch(/NODE_OPTIONS|entrypoint:/);
  });

  it('take effect on this Node: the young generation is twice the semi-space size asked for', () => {
    const semiSpaceMiB = Number(/--max-semi-space-size=(\d+)/.exec(PLATFORM_NODE_FLAGS.join(' '))?.[1]);
    expect(semiSpaceMiB).toBeGreaterThan(16); // Node 20's default on 64-bit
    const script =
      "const v8 = require('v8'); const keep = []; for (let i = 0; i < 2e6; i++) { keep.push({ i }); if (keep.length > 3e5) keep.length = 0; }" +
      "console.log(v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size)";
    const newSpace = Number(execFileSync(process.execPath, [...PLATFORM_NODE_FLAGS, '-e', script], { encoding: 'utf8' }).trim());
    expect(newSpace / 2 ** 20).toBe(2 * semiSpaceMiB);
  });

  it('reach the processes a cluster primary forks (a process per core)', () => {
    const script =
      "const cluster = require('cluster'); if (cluster.isPrimary) cluster.fork().on('message', (flags) => { console.log(JSON.stringify(flags)); process.exit(0); });" +
      ' else process.send(process.execArgv);';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'trellis-flags-'));
    try {
      const file = path.join(dir, 'fork.cjs');
      writeFileSync(file, script);
      const flags = JSON.parse(execFileSync(process.execPath, [...PLATFORM_NODE_FLAGS, file], { encoding: 'utf8' }).trim());
      expect(flags).toEqual(PLATFORM_NODE_FLAGS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
