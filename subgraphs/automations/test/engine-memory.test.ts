import { sql } from 'kysely';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseCursor, publishEvents } from '../../../platform/events/index.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { TEST_ENV } from './helpers.js';

/**
 * The automation engine reads every event an automation can watch, for the platform's whole life. Each read used to
 * race the subscription's next event against a promise derived from its processing's failure, which stays pending
 * while the engine runs: every read left a reaction on it, so the engine kept ≈ 1.6 KB more per event.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
});
afterAll(async () => {
  await platform?.close();
});

/** Publishes `count` events no automation matches and waits until the engine's cursor has passed the last. */
async function handled(count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, n) => ({
    type: 'RUN_STATE',
    entity: 'trellis',
    project: 'memory-check',
    author: 'admin',
    payload: { run: { id: '00000000-0000-4000-8000-000000000002', name: 'r' }, state: 'RUNNING', n },
  }));
  const ids = await publishEvents(platform.db.root, events);
  const last = BigInt(ids.at(-1)!);
  for (let waited = 0; waited < 30_000; waited += 20) {
    const { rows } = await sql<{ cursor: string }>`select cursor from automations.engine_cursors where name = 'automation-engine'`.execute(platform.db.root);
    const position = rows[0] && parseCursor(rows[0].cursor);
    if (position && position.id >= last) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the engine did not handle the events within 30 s');
}

it('keeps no memory per event it reads', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  await handled(2_000);
  gc();
  const before = process.memoryUsage().heapUsed;
  await handled(5_000);
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  // ≈ 8 MB when each read left its reaction behind (≈ 1.6 KB an event); ≈ 0.1–0.3 MB now.
  expect(grown).toBeLessThan(2_000_000);
}, 60_000);
