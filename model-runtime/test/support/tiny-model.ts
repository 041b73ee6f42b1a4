import { parseLlamaConfig } from '../../model-config.js';
import { type LlamaModel, initModel } from '../../model.js';

/** A small randomly initialised model for format and API tests (fast; its outputs are gibberish). */
export function tinyRandomModel(seed = 1, overrides: Record<string, unknown> = {}): LlamaModel {
  return initModel(
    parseLlamaConfig({
      model_type: 'llama', hidden_size: 32, intermediate_size: 64, num_hidden_layers: 2, num_attention_heads: 4,
      num_key_value_heads: 2, vocab_size: 262, max_position_embeddings: 96, rope_theta: 10000, rms_norm_eps: 1e-5,
      ...overrides,
    }),
    seed,
    `tiny-random-${seed}`,
  );
}
