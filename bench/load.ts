import { performance } from 'node:perf_hooks';

/** Latency samples (ms) and the throughput of one load run. */
export interface LoadResult {
  label: string;
  operations: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/**
 * Runs `task` from `concurrency` loops for `seconds`, each loop starting its next task when the previous ends
 * (closed loop, like autocannon's connections). `unitsPerTask` counts rows per task (1,000 for a batch).
 */
export async function runLoad(
  label: string,
  options: { concurrency: number; seconds: number; unitsPerTask?: number },
  task: () => Promise<void>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await task();
          latencies.push(performance.now() - t0);
        } catch (error) {
          errors++;
          firstError ??= error;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (errors > 0) console.error(`${label}: ${errors} errors, first:`, firstError);
  const operations = latencies.length * (options.unitsPerTask ?? 1);
  return { label, operations, seconds, perSecond: operations / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors };
}

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Sequential timings of `task`, `runs` times after `warmup` unmeasured runs. */
export async function timeRuns(runs: number, warmup: number, task: () => Promise<void>): Promise<{ median: number; p99: number; samples: number[] }> {
  for (let i = 0; i < warmup; i++) await task();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await task();
    samples.push(performance.now() - t0);
  }
  return { median: percentile(samples, 0.5), p99: percentile(samples, 0.99), samples };
}

export const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
