/**
 * Exponential moving average of a curve, as TensorBoard and W&B smooth training curves: each point is `weight` times
 * the running average plus `1 - weight` times the value, debiased so the first points are not pulled towards 0.
 * Points without a value are kept as gaps and do not move the average. `weight` 0 returns the curve as it is.
 */
export function smoothCurve(points: readonly (readonly [number, number | null])[], weight: number): [number, number | null][] {
  if (weight <= 0) return points.map(([x, y]) => [x, y]);
  let average = 0;
  let seen = 0;
  return points.map(([x, y]) => {
    if (y === null || !Number.isFinite(y)) return [x, null];
    average = average * weight + (1 - weight) * y;
    seen += 1;
    return [x, average / (1 - weight ** seen)];
  });
}
