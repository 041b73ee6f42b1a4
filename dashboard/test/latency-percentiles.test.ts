import { describe, expect, it } from 'vitest';
import { latencyPercentiles, nearestRank } from '../src/pages/traces/latency-percentiles.js';

describe('the traces list latency chart', () => {
  it('takes nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(nearestRank(sorted, 0.5)).toBe(10);
    expect(nearestRank(sorted, 0.95)).toBe(19);
    expect(nearestRank([7], 0.95)).toBe(7);
  });

  it('gives p50 and p95 per bucket of start time, and leaves buckets without calls out (gaps, not joined)', () => {
    const minute = 60_000;
    const t0 = Date.UTC(2026, 10, 28, 12, 0, 0);
    // 10 calls in the first minute (latencies 10..100), none for 20 minutes, 2 calls at the end.
    const samples = [
      ...Array.from({ length: 10 }, (_, i) => ({ startedAt: t0 + i * 1000, latencyMs: (i + 1) * 10 })),
      { startedAt: t0 + 23 * minute, latencyMs: 500 },
      { startedAt: t0 + 23 * minute + 5000, latencyMs: 700 },
    ];
    const chart = latencyPercentiles(samples, 24)!;
    expect(chart.step).toBe(minute);
    expect(chart.range).toEqual([t0, t0 + 24 * minute]);
    expect(chart.p50).toEqual([
      [t0, 50],
      [t0 + 23 * minute, 500],
    ]);
    expect(chart.p95).toEqual([
      [t0, 100],
      [t0 + 23 * minute, 700],
    ]);
    expect(latencyPercentiles(samples.slice(0, 1))).toBeNull();
  });
});
