import { describe, expect, it } from 'vitest';
import { checkHopTargets, hopLimits, median, throughputAgainstPortkey, type HopCell } from '../hop-targets.js';

const cell = (target: string, p50: number, p99: number, extra: Partial<HopCell> = {}): HopCell => ({
  target,
  mode: 'plain',
  delayMs: 50,
  concurrency: 200,
  throughput: 1000,
  p50,
  p99,
  ...extra,
});

describe('issue #15 hop targets', () => {
  it('takes the larger of 2× the floor and floor + 1 ms for p50, 3× the floor for p99', () => {
    expect(hopLimits({ p50: 0.3, p99: 2 })).toEqual({ p50: 1.3, p99: 6 });
    expect(hopLimits({ p50: 2, p99: 2 })).toEqual({ p50: 4, p99: 6 });
  });

  it('gives no p99 target when the floor added nothing (its p99 below the baseline: noise)', () => {
    expect(hopLimits({ p50: 1, p99: -4.4 }).p99).toBeUndefined();
    expect(hopLimits({ p50: 1, p99: 0 }).p99).toBeUndefined();
  });

  it('judges the highest concurrency against the direct cell and against the probes of the same seconds', () => {
    const cells = [
      cell('direct', 50, 52),
      cell('floor', 51, 55, { probeP50: 50.5, probeP99: 54 }),
      cell('trellis', 53.5, 70, { probeP50: 52.5, probeP99: 68 }),
      // A lower concurrency is not judged.
      cell('trellis', 90, 900, { concurrency: 50 }),
      cell('direct', 50, 52, { concurrency: 50 }),
      cell('floor', 50, 52, { concurrency: 50 }),
    ];
    const checks = checkHopTargets(cells);
    expect(checks).toHaveLength(2);
    const [direct, probes] = checks;
    expect(direct).toMatchObject({ baseline: 'direct', concurrency: 200, p50: 'missed', p99: 'missed' });
    expect(direct!.added).toEqual({ p50: 3.5, p99: 18 });
    expect(direct!.limit).toEqual({ p50: 2, p99: 9 });
    expect(probes).toMatchObject({ baseline: 'probes', p50: 'met', p99: 'met' });
    expect(probes!.limit).toEqual({ p50: 1.5, p99: 3 });
    expect(probes!.added).toEqual({ p50: 1, p99: 2 });
  });

  it('with rounds, takes each round against its own direct cell and judges the medians over the rounds', () => {
    const round = (n: number, direct: number, floor: number, trellis: number) => [
      cell('direct', direct, direct + 2, { round: n }),
      cell('floor', direct + floor, direct + 2 + 2 * floor, { round: n }),
      cell('trellis', direct + trellis, direct + 2 + 2 * trellis, { round: n }),
    ];
    // Round 2 was disturbed (the floor looked free, Trellis slow): alone it would decide both verdicts.
    const cells = [...round(1, 50, 1, 1.5), ...round(2, 53, 0.1, 6), ...round(3, 51, 1.2, 2)];
    const [direct] = checkHopTargets(cells);
    expect(direct).toMatchObject({ baseline: 'direct', rounds: 3, p50: 'met', p99: 'met' });
    expect(direct!.floor).toEqual({ p50: 1, p99: 2 });
    expect(direct!.added).toEqual({ p50: 2, p99: 4 });
    expect(checkHopTargets(round(2, 53, 0.1, 6))[0]).toMatchObject({ rounds: 1, p50: 'missed', p99: 'missed' });
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('holds any target to the floor’s limits: a second bare proxy (control) is judged as Trellis is', () => {
    const cells = [cell('direct', 50, 52), cell('floor', 51, 55), cell('control', 51.2, 62), cell('trellis', 52, 56)];
    const [control] = checkHopTargets(cells, 'control');
    expect(control).toMatchObject({ target: 'control', baseline: 'direct', p50: 'met', p99: 'missed' });
    expect(control!.added).toEqual({ p50: expect.closeTo(1.2, 6), p99: 10 });
    expect(checkHopTargets(cells)[0]).toMatchObject({ target: 'trellis', p50: 'met', p99: 'met' });
    // A target that did not run gives no check.
    expect(checkHopTargets(cells, 'essentials')).toEqual([]);
  });

  it('reports Portkey throughput ratios with the cap the closed loop puts on any target', () => {
    const cells = [cell('trellis', 53, 70, { throughput: 3600 }), cell('portkey', 110, 160, { throughput: 1600 })];
    const [row] = throughputAgainstPortkey(cells);
    expect(row!.ratio).toBeCloseTo(2.25);
    // 200 clients / 50 ms offer at most 4000 req/s: 2.5× Portkey's 1600 at the very most.
    expect(row!.cap).toBeCloseTo(2.5);
  });
});
