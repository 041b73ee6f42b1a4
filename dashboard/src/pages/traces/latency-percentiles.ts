/**
 * The traces list's latency chart: the calls on the page bucketed by start, p50 and p95 of each bucket. Calls are
 * unrelated to each other, so a line from one call's latency to the next one's meant nothing; a percentile per
 * bucket is what "how slow are these calls, and when" asks. Buckets without a call stay gaps.
 */
export interface LatencySample {
  startedAt: number;
  latencyMs: number;
}

export interface LatencyPercentiles {
  /** The bucket size in milliseconds: a round size (1 s, 5 s, 1 min, 1 h, …). */
  step: number;
  /** The window the buckets cover: [first bucket's start, last bucket's end). */
  range: [number, number];
  p50: [number, number | null][];
  p95: [number, number | null][];
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Bucket sizes a reader takes in at a glance (the smallest that gives at most the asked-for number of buckets). */
const NICE_STEPS = [1, 2, 5, 10, 15, 30].map((n) => n * SECOND).concat([1, 2, 5, 10, 15, 30].map((n) => n * MINUTE), [1, 2, 3, 6, 12, 24, 48, 168].map((n) => n * HOUR));

/** The nearest-rank percentile (q in (0, 1]) of sorted values. */
export function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

/** At most `buckets` equal buckets over the samples' starts; null when there are fewer than two samples. */
export function latencyPercentiles(samples: readonly LatencySample[], buckets = 24): LatencyPercentiles | null {
  if (samples.length < 2) return null;
  const starts = samples.map((sample) => sample.startedAt);
  const first = Math.min(...starts);
  const last = Math.max(...starts);
  const wanted = (last - first + 1) / buckets;
  const step = NICE_STEPS.find((candidate) => candidate >= wanted) ?? Math.ceil(wanted / (24 * HOUR)) * 24 * HOUR;
  const from = Math.floor(first / step) * step;
  const byBucket = new Map<number, number[]>();
  for (const sample of samples) {
    const bucket = Math.floor(sample.startedAt / step) * step;
    const values = byBucket.get(bucket) ?? [];
    values.push(sample.latencyMs);
    byBucket.set(bucket, values);
  }
  const p50: [number, number | null][] = [];
  const p95: [number, number | null][] = [];
  for (const [bucket, values] of [...byBucket].sort((a, b) => a[0] - b[0])) {
    values.sort((a, b) => a - b);
    p50.push([bucket, nearestRank(values, 0.5)]);
    p95.push([bucket, nearestRank(values, 0.95)]);
  }
  return { step, range: [from, Math.floor(last / step) * step + step], p50, p95 };
}
