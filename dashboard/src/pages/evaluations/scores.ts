import type { EvaluationRunFieldsFragment } from '../../graphql/generated';

/** Formatting of evaluation scores and runs, shared by the runs table and the comparison. */

export type Run = EvaluationRunFieldsFragment;

export interface MetricKey {
  scorer: string;
  metric: string | null;
  kind: 'NUMBER' | 'BOOLEAN';
}

export const metricId = (metric: { scorer: string; metric: string | null }) => `${metric.scorer}\u0000${metric.metric ?? ''}`;
export const metricLabel = (metric: { scorer: string; metric: string | null }) => (metric.metric ? `${metric.scorer} · ${metric.metric}` : metric.scorer);
export const byMetric = (a: { scorer: string; metric: string | null }, b: { scorer: string; metric: string | null }) =>
  a.scorer.localeCompare(b.scorer) || (a.metric ?? '').localeCompare(b.metric ?? '');

/** A mean or a value: booleans as a percentage true, numbers with up to three decimals. */
export function formatScore(value: number | null | undefined, kind: 'NUMBER' | 'BOOLEAN'): string {
  if (value === null || value === undefined) return '—';
  if (kind === 'BOOLEAN') return `${Math.round(value * 1000) / 10}%`;
  return new Intl.NumberFormat('en', { maximumFractionDigits: 3 }).format(value);
}

/** A single example's value: booleans as true/false. */
export function formatValue(value: number | null, kind: 'NUMBER' | 'BOOLEAN'): string {
  if (value === null) return '—';
  if (kind === 'BOOLEAN') return value >= 0.5 ? 'true' : 'false';
  return formatScore(value, kind);
}

/** A signed change: `+0.2`, `−12.5%`, `±0`. */
export function formatDelta(delta: number, kind: 'NUMBER' | 'BOOLEAN'): string {
  return `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${formatScore(Math.abs(delta), kind)}`;
}

/** How a value compares with the baseline's (higher is better); null when equal or either is missing. */
export function versusBaseline(value: number | null, baseline: number | null): 'better' | 'worse' | null {
  if (value === null || baseline === null || value === baseline) return null;
  return value > baseline ? 'better' : 'worse';
}

/** A JSON value as one line of text, cut at `max` characters. */
export function preview(value: unknown, max = 120): string {
  if (value === null || value === undefined) return '—';
  const text = asText(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A JSON value as text: strings as they are, objects as `key: value, …`, anything else as JSON. */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${key}: ${typeof item === 'string' ? item : JSON.stringify(item)}`)
      .join(', ');
  }
  return JSON.stringify(value);
}

export function runLabel(run: Pick<Run, 'evaluation' | 'model'>): string {
  return `${run.model} on ${run.evaluation}`;
}

/** The letter a run is shown under in a comparison: A is the baseline, then B, C, D. */
export const sideOf = (index: number) => String.fromCharCode(65 + index);
