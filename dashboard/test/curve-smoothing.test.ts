import { describe, expect, it } from 'vitest';
import { smoothCurve } from '../src/components/curve-smoothing.js';

describe('smoothCurve (EMA of training curves)', () => {
  it('is the curve itself at weight 0, and a debiased moving average otherwise (its first point is the value)', () => {
    const curve = [[1, 4], [2, 0], [3, 4]] as const;
    expect(smoothCurve(curve, 0)).toEqual([[1, 4], [2, 0], [3, 4]]);
    const smoothed = smoothCurve(curve, 0.5);
    expect(smoothed[0]).toEqual([1, 4]);
    // (0.5·4·0.5 + 0.5·0) / (1 − 0.25) = 1 / 0.75
    expect(smoothed[1]![1]).toBeCloseTo(4 / 3);
    expect(smoothed[2]![1]).toBeCloseTo((0.5 * (0.5 * 2) + 0.5 * 4) / (1 - 0.125));
  });

  it('keeps gaps as gaps without moving the average', () => {
    expect(smoothCurve([[1, 2], [2, null], [3, 2]], 0.9)).toEqual([[1, 2], [2, null], [3, expect.closeTo(2, 10)]]);
  });
});
