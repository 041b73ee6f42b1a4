/**
 * Token usage as the Weave SDKs record it: `summary.usage` is keyed by model name, each entry holding the provider's
 * counts — OpenAI's `prompt_tokens`/`completion_tokens`, Anthropic's (and the Responses API's)
 * `input_tokens`/`output_tokens`. This module is the one place that reads those names: the per-call parser below
 * and the SQL aggregation (token-usage.store.ts) both take them from here.
 */
export const INPUT_TOKEN_KEYS = ['prompt_tokens', 'input_tokens'] as const;
export const OUTPUT_TOKEN_KEYS = ['completion_tokens', 'output_tokens'] as const;

/** One model's tokens within a call, a trace or a window. */
export interface ModelTokens {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/** The first of `keys` that holds a finite, non-negative number (others — strings, negatives — count as absent). */
function countOf(entry: Record<string, unknown>, keys: readonly string[]): number {
  for (const key of keys) {
    const value = entry[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return 0;
}

/** The per-model counts of a stored call summary, sorted by model; empty when it has no usage. */
export function tokensOfSummary(summary: unknown): ModelTokens[] {
  if (!isObject(summary) || !isObject(summary.usage)) return [];
  const models: ModelTokens[] = [];
  for (const [model, entry] of Object.entries(summary.usage)) {
    if (!isObject(entry)) continue;
    models.push({ model, inputTokens: countOf(entry, INPUT_TOKEN_KEYS), outputTokens: countOf(entry, OUTPUT_TOKEN_KEYS) });
  }
  return models.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
