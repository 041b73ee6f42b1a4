import type { AutomationEvent } from '../automations.schemas.js';

/** Aggregates a window of metric values (newest first). */
export function aggregate(values: number[], aggregation: 'AVG' | 'MIN' | 'MAX'): number {
  switch (aggregation) {
    case 'MIN':
      return Math.min(...values);
    case 'MAX':
      return Math.max(...values);
    default:
      return values.reduce((sum, value) => sum + value, 0) / values.length;
  }
}

export function compare(value: number, comparison: NonNullable<AutomationEvent['comparison']>, threshold: number): boolean {
  switch (comparison) {
    case 'GT':
      return value > threshold;
    case 'GTE':
      return value >= threshold;
    case 'LT':
      return value < threshold;
    case 'LTE':
      return value <= threshold;
    case 'EQ':
      return value === threshold;
    case 'NE':
      return value !== threshold;
  }
}

/**
 * RUN_METRIC: the aggregate of the most recent `window` values crosses the threshold. The window must be full, so
 * a single early value cannot fire an "average over 5" condition.
 */
export function thresholdMet(filter: AutomationEvent, recent: number[]): boolean {
  const window = filter.window ?? 5;
  if (recent.length < window) return false;
  return compare(aggregate(recent.slice(0, window), filter.aggregation ?? 'AVG'), filter.comparison!, filter.threshold!);
}

/**
 * RUN_METRIC_CHANGE: the current window's aggregate moved by at least `changeAmount` (absolute, or relative to
 * the prior window's aggregate) in the watched direction, compared with the window of values before it.
 */
export function changeMet(filter: AutomationEvent, current: number[], prior: number[]): boolean {
  if (current.length < (filter.window ?? 10) || prior.length === 0) return false;
  const aggregation = filter.aggregation ?? 'AVG';
  const now = aggregate(current, aggregation);
  const before = aggregate(prior, aggregation);
  let change = now - before;
  if (filter.changeKind === 'RELATIVE') {
    if (before === 0) return false;
    change = change / Math.abs(before);
  }
  const amount = filter.changeAmount!;
  switch (filter.changeDirection ?? 'ANY') {
    case 'INCREASE':
      return change >= amount;
    case 'DECREASE':
      return -change >= amount;
    default:
      return Math.abs(change) >= amount;
  }
}
