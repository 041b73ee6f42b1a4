import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { engineHandled, publishUnwatchedEvents, TEST_ENV } from './helpers.js';

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

const handled = async (count: number) => engineHandled(platform, await publishUnwatchedEvents(platform, count));

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
