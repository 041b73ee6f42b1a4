import type { ModelDefinition } from '../catalog/model-definition.schema.js';
import { DEFAULT_MODEL_PRICES } from './default-prices.js';
import type { ModelPrice } from './model-price.schema.js';

/** Where a model's price came from, most specific first. */
export type PriceSource = 'catalog' | 'file' | 'default';
export interface ResolvedPrice extends ModelPrice {
  source: PriceSource;
}

/**
 * A dated or rolling snapshot of a model family: `gpt-4o-2024-08-06`, `claude-3-5-sonnet-20241022`, `gpt-4-0613`,
 * `claude-3-5-haiku-latest`, `gpt-4-turbo-preview`. Only these suffixes inherit the family's price, so `gpt-4o`
 * never prices `gpt-4o-mini` nor `gpt-4` `gpt-4-turbo`.
 */
const SNAPSHOT_SUFFIX = /^-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest|preview(-\d{4}-\d{2}-\d{2})?)$/;

/** Prices by lower-cased model name. */
type PriceMap = ReadonlyMap<string, ModelPrice>;

export const toPriceMap = (prices: Readonly<Record<string, ModelPrice>>): PriceMap =>
  new Map(Object.entries(prices).map(([model, price]) => [model.toLowerCase(), price]));

/**
 * The price of a model name as clients record it: exact, then without a provider prefix (`openai/gpt-4o`), then as a
 * snapshot of a listed family.
 */
function lookup(prices: PriceMap, name: string): ModelPrice | undefined {
  const lower = name.toLowerCase();
  const bare = lower.slice(lower.lastIndexOf('/') + 1);
  const exact = prices.get(lower) ?? prices.get(bare);
  if (exact) return exact;
  for (const [family, price] of prices) {
    if (bare.startsWith(family) && SNAPSHOT_SUFFIX.test(bare.slice(family.length))) return price;
  }
  return undefined;
}

/**
 * The model price table: a catalog model's own `pricing` first, then TRELLIS_MODEL_PRICES_FILE, then the shipped
 * defaults. A catalog model without `pricing` is priced as its `root` (a catalog id `team-gpt` serving `gpt-4o-mini`
 * costs what gpt-4o-mini does). A model found nowhere has no price: its cost is unknown (null), never 0.
 */
export class PriceTable {
  private readonly defaults: PriceMap;

  constructor(
    /** The catalog model with this id, if any (read per lookup: the catalog changes while the platform runs). */
    private readonly catalogModel: (id: string) => ModelDefinition | undefined,
    private readonly filePrices: PriceMap = new Map(),
    defaults: Readonly<Record<string, ModelPrice>> = DEFAULT_MODEL_PRICES,
  ) {
    this.defaults = toPriceMap(defaults);
  }

  priceOf(model: string): ResolvedPrice | null {
    const definition = this.catalogModel(model);
    if (definition?.pricing) return { ...definition.pricing, source: 'catalog' };
    for (const name of definition?.root && definition.root !== model ? [model, definition.root] : [model]) {
      const fromFile = lookup(this.filePrices, name);
      if (fromFile) return { ...fromFile, source: 'file' };
      const shipped = lookup(this.defaults, name);
      if (shipped) return { ...shipped, source: 'default' };
    }
    return null;
  }

  /** US dollars for these tokens of the model; null when the model has no price (no tokens cost nothing, priced or not). */
  costOf(model: string, inputTokens: number, outputTokens: number): number | null {
    if (inputTokens === 0 && outputTokens === 0) return 0;
    const price = this.priceOf(model);
    return price ? costAt(price, inputTokens, outputTokens) : null;
  }

  /** The sum over several models; null as soon as one model that used tokens has no price. */
  totalCostOf(usage: readonly { model: string; inputTokens: number; outputTokens: number }[]): number | null {
    let total = 0;
    for (const entry of usage) {
      const cost = this.costOf(entry.model, entry.inputTokens, entry.outputTokens);
      if (cost === null) return null;
      total += cost;
    }
    return total;
  }
}

export function costAt(price: ModelPrice, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.input_per_million + outputTokens * price.output_per_million) / 1_000_000;
}
