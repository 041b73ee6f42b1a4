import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOldGenerationProbe } from '../../../test/support/old-generation-growth.js';

const probe = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'promotion-probe.ts');

describe('gracefulClose under keep-alive load', () => {
  // It used to keep every response in flight in a Set: once the Set's table had been promoted, each table it replaced
  // kept the responses it held reachable for the scavenger, so every request's objects went to the old generation
  // (≈ 1.9 KB of old space per request in this probe, against ≈ 0.1 KB without the Set), lengthening every
  // young-generation pause of the platform (docs/benchmarks-history.md, inference, "2026-11-27, second session").
  it('leaves nothing of finished requests for the old generation', async () => {
    const result = await runOldGenerationProbe(probe);
    expect(result.requests).toBeGreaterThan(4_000);
    expect(result.bytesPerRequest).toBeLessThan(500);
  });
});
