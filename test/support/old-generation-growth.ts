import { execFile } from 'node:child_process';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { getHeapSpaceStatistics } from 'node:v8';
import { sleep } from './raw-http.js';

/**
 * For probes run as their own Node process with `--expose-gc`: how many bytes of old generation each request adds
 * while `clients` loops of `request` run. The objects of the requests in flight are first pushed into the old
 * generation with two forced young-generation collections (what a long pause or a slow request does by chance);
 * code that keeps finished requests reachable for the young-generation collector from there on (through an object
 * in the old generation that is dead but not yet collected) shows as kilobytes a request, since each such request
 * is promoted in turn. Stretches with a full collection are left out; measures `requests` requests (at most `maxMs`).
 * Prints `{"bytesPerRequest","requests"}`.
 */
export async function reportOldGenerationGrowth(
  request: () => Promise<void>,
  options: { clients?: number; requests?: number; maxMs?: number } = {},
): Promise<void> {
  const gc = (globalThis as { gc?: (options: { type: 'minor' | 'major' }) => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  let served = 0;
  let running = true;
  const loops = Array.from({ length: options.clients ?? 50 }, async () => {
    while (running) {
      await request();
      served++;
    }
  });

  const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
  let majorCollections = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorCollections++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });

  await sleep(1_000); // warm up: the code is optimized and the heap sized before measuring
  gc({ type: 'minor' });
  await sleep(2);
  gc({ type: 'minor' });

  // Counted in requests, not time: on a busy machine (the suite runs files in parallel) fewer requests are served in
  // a second, and what the old generation gains per second regardless of requests must not count for more.
  let grown = 0;
  let counted = 0;
  const wanted = options.requests ?? 8_000;
  const until = Date.now() + (options.maxMs ?? 20_000);
  while (counted < wanted && Date.now() < until) {
    const before = { used: oldSpaceUsed(), served, majors: majorCollections };
    await sleep(20);
    if (majorCollections !== before.majors) continue;
    grown += oldSpaceUsed() - before.used;
    counted += served - before.served;
  }
  running = false;
  await Promise.all(loops);
  observer.disconnect();
  process.stdout.write(`${JSON.stringify({ bytesPerRequest: Math.round(grown / Math.max(1, counted)), requests: counted })}\n`);
}

/** Runs a probe script (a file that calls reportOldGenerationGrowth) and returns its figures. */
export async function runOldGenerationProbe(script: string): Promise<{ bytesPerRequest: number; requests: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', script], { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { bytesPerRequest: number; requests: number };
}
