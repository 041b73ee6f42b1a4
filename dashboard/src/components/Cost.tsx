import { formatNumber } from './Format';

/**
 * Token and cost figures, the same on every page (trace view, traces list, Home, Inference). Costs come from the
 * graph's `cost` fields (the inference price table); null means the model has no price, shown as "—", never $0.
 */

/** "$0.0075", "$1.24", "$0.000105": small costs keep three significant digits, so a cheap call is not "$0.00". */
export function formatCost(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value === 0) return '$0.00';
  if (value >= 1) return `$${value.toFixed(2)}`;
  if (value >= 0.01) return `$${value.toFixed(4)}`;
  return `$${new Intl.NumberFormat('en', { maximumSignificantDigits: 3 }).format(value)}`;
}

/** "1,500 tokens"; "—" when nothing was recorded. */
export function formatTokens(value: number | null | undefined): string {
  if (!value) return '—';
  return `${formatNumber(value)} tokens`;
}

const COST_TITLE_UNKNOWN = 'No price for this model: set one in the catalog or TRELLIS_MODEL_PRICES_FILE';

/**
 * A call's or a trace's tokens and cost as two small badges; nothing when no tokens were recorded. `data-cost` holds
 * the exact figure (tests and copy), the text its rounded form.
 */
export function UsageBadges({ usage, label }: { usage: { totalTokens: number; cost?: number | null } | null | undefined; label?: string }) {
  if (!usage || usage.totalTokens === 0) return null;
  const cost = usage.cost ?? null;
  return (
    <span className="usage-badges" aria-label={label}>
      <span className="badge usage-tokens" data-tokens={usage.totalTokens}>
        {formatTokens(usage.totalTokens)}
      </span>
      <span className="badge usage-cost" data-cost={cost ?? ''} title={cost === null ? COST_TITLE_UNKNOWN : `US$${cost}`}>
        {formatCost(cost)}
      </span>
    </span>
  );
}
