import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../platform/config.js';
import type { ModelDefinition } from '../catalog/model-definition.schema.js';
import { DEFAULT_MODEL_PRICES } from '../pricing/default-prices.js';
import { loadModelPricesFile } from '../pricing/prices-file.js';
import { PriceTable, toPriceMap } from '../pricing/price-table.js';

const noCatalog = () => undefined;

describe('the model price table', () => {
  it('prices a shipped model and its dated snapshots at the list price, per million tokens', () => {
    const table = new PriceTable(noCatalog);
    // gpt-4o: $2.50 in, $10 out per million.
    expect(table.costOf('gpt-4o', 1_000_000, 0)).toBe(2.5);
    expect(table.costOf('gpt-4o-2024-08-06', 1_000, 500)).toBeCloseTo((1_000 * 2.5 + 500 * 10) / 1e6, 12);
    expect(table.costOf('claude-3-5-sonnet-20241022', 2_000, 100)).toBeCloseTo((2_000 * 3 + 100 * 15) / 1e6, 12);
    expect(table.costOf('claude-3-5-haiku-latest', 1_000_000, 1_000_000)).toBeCloseTo(0.8 + 4, 12);
    expect(table.costOf('openai/gpt-4o-mini', 1_000_000, 0)).toBeCloseTo(0.15, 12);
    expect(table.priceOf('gpt-4.1-nano')).toEqual({ ...DEFAULT_MODEL_PRICES['gpt-4.1-nano'], source: 'default' });
  });

  it('does not price one family at another that shares its prefix', () => {
    const table = new PriceTable(noCatalog);
    expect(table.priceOf('gpt-4o-mini-2024-07-18')?.input_per_million).toBe(0.15);
    expect(table.priceOf('gpt-4-turbo-2024-04-09')?.input_per_million).toBe(10);
    expect(table.priceOf('o1-mini')?.input_per_million).toBe(1.1);
    expect(table.priceOf('gpt-4o-audio-preview-x')).toBeNull();
  });

  it('has no price (null, not 0) for a model it does not know', () => {
    const table = new PriceTable(noCatalog);
    expect(table.costOf('my-finetune', 10, 10)).toBeNull();
    // A request that used no tokens (a failed one) cost nothing, whatever the model.
    expect(table.costOf('no-such-model', 0, 0)).toBe(0);
    expect(table.totalCostOf([{ model: 'gpt-4o', inputTokens: 10, outputTokens: 0 }, { model: 'my-finetune', inputTokens: 1, outputTokens: 0 }])).toBeNull();
    // A model that used no tokens costs nothing, whatever its price.
    expect(table.totalCostOf([{ model: 'gpt-4o', inputTokens: 1_000_000, outputTokens: 0 }, { model: 'my-finetune', inputTokens: 0, outputTokens: 0 }])).toBe(2.5);
  });

  it('takes a catalog model’s pricing first, then the prices file, then the shipped table; a catalog model without pricing costs what its root does', () => {
    const catalog: Record<string, ModelDefinition> = {
      'gpt-4o': { id: 'gpt-4o', backend: 'openai-compatible', pricing: { input_per_million: 1, output_per_million: 2 } },
      'team-mini': { id: 'team-mini', backend: 'openai-compatible', root: 'gpt-4o-mini' },
    };
    const file = toPriceMap({ 'gpt-4o-mini': { input_per_million: 0.2, output_per_million: 0.7 }, 'Local-Llama': { input_per_million: 0, output_per_million: 0 } });
    const table = new PriceTable((id) => catalog[id], file);
    expect(table.priceOf('gpt-4o')).toEqual({ input_per_million: 1, output_per_million: 2, source: 'catalog' });
    expect(table.priceOf('gpt-4o-mini')).toEqual({ input_per_million: 0.2, output_per_million: 0.7, source: 'file' });
    expect(table.priceOf('team-mini')).toEqual({ input_per_million: 0.2, output_per_million: 0.7, source: 'file' });
    expect(table.costOf('local-llama', 1_000, 1_000)).toBe(0);
    expect(table.priceOf('gpt-4.1')?.source).toBe('default');
  });

  it('reads TRELLIS_MODEL_PRICES_FILE and refuses one that does not fit its schema', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-prices-'));
    const good = path.join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ prices: { 'my-model': { input_per_million: 1.5, output_per_million: 3 } } }));
    expect(loadModelPricesFile(good).get('my-model')).toEqual({ input_per_million: 1.5, output_per_million: 3 });
    const negative = path.join(dir, 'negative.json');
    await writeFile(negative, JSON.stringify({ prices: { 'my-model': { input_per_million: -1, output_per_million: 3 } } }));
    expect(() => loadModelPricesFile(negative)).toThrow(ConfigError);
    expect(() => loadModelPricesFile(negative)).toThrow(/input_per_million/);
    expect(() => loadModelPricesFile(path.join(dir, 'missing.json'))).toThrow(/cannot be read as JSON/);
    expect(loadModelPricesFile(undefined).size).toBe(0);
  });
});
