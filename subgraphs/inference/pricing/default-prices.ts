import type { ModelPrice } from './model-price.schema.js';

const price = (input: number, output: number): ModelPrice => ({ input_per_million: input, output_per_million: output });

/**
 * The shipped price table: US dollars per million tokens, standard (non-batch, uncached) list prices from the
 * providers' pricing pages — openai.com/api/pricing, anthropic.com/pricing, ai.google.dev/pricing — as of
 * 2025-08. Names are the providers' model ids; a dated snapshot (`gpt-4o-2024-08-06`,
 * `claude-3-5-sonnet-20241022`) or `-latest` takes its family's price (price-table.ts). Operators override any of
 * them per catalog model (`pricing`) or with TRELLIS_MODEL_PRICES_FILE; a model in none of them has no cost.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-5': price(1.25, 10),
  'gpt-5-mini': price(0.25, 2),
  'gpt-5-nano': price(0.05, 0.4),
  'gpt-4.1': price(2, 8),
  'gpt-4.1-mini': price(0.4, 1.6),
  'gpt-4.1-nano': price(0.1, 0.4),
  'gpt-4o': price(2.5, 10),
  'gpt-4o-mini': price(0.15, 0.6),
  'gpt-4-turbo': price(10, 30),
  'gpt-4': price(30, 60),
  'gpt-3.5-turbo': price(0.5, 1.5),
  o1: price(15, 60),
  'o1-mini': price(1.1, 4.4),
  'o1-pro': price(150, 600),
  o3: price(2, 8),
  'o3-mini': price(1.1, 4.4),
  'o3-pro': price(20, 80),
  'o4-mini': price(1.1, 4.4),
  // Anthropic
  'claude-opus-4-1': price(15, 75),
  'claude-opus-4': price(15, 75),
  'claude-sonnet-4': price(3, 15),
  'claude-3-7-sonnet': price(3, 15),
  'claude-3-5-sonnet': price(3, 15),
  'claude-3-5-haiku': price(0.8, 4),
  'claude-3-opus': price(15, 75),
  'claude-3-sonnet': price(3, 15),
  'claude-3-haiku': price(0.25, 1.25),
  // Google
  'gemini-2.5-pro': price(1.25, 10),
  'gemini-2.5-flash': price(0.3, 2.5),
  'gemini-2.0-flash': price(0.1, 0.4),
  'gemini-1.5-pro': price(1.25, 5),
  'gemini-1.5-flash': price(0.075, 0.3),
};
