import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

    const nodeOptions = /^ENV .*NODE_OPTIONS=(\S+|"[^"]*")/m.exec(read('Dockerfile'));
    expect(nodeOptions, 'the Dockerfile sets NODE_OPTIONS').not.toBeNull();
    expect(nodeOptions![1]!.replace(/"/g, '').split(' ')).toEqual(PLATFORM_NODE_FLAGS);
    // The compose services run the image's command with `node …`: none may replace NODE_OPTIONS.
    expect(read('docker-compose.yml')).not.toMatch(/NODE_OPTIONS/);
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
});
