import { describe, expect, it } from 'vitest';
import { createAdapter } from '../lora-adapter.js';
import { parseLlamaConfig } from '../model-config.js';
import { type LlamaModel, PROJECTIONS, initModel } from '../model.js';
import { SeededRandom } from '../rng.js';
import { logprobGradientToLogits, scoreSequence } from '../sequence-logprobs.js';
import { backward, zeroLoraGradients, zeroModelGradients } from '../transformer.js';
import type { LoraAdapter } from '../lora-adapter.js';

// Small but complete: GQA (4 query heads sharing 2 kv heads), two layers, rotary, SwiGLU.
const config = parseLlamaConfig({
  model_type: 'llama', hidden_size: 16, intermediate_size: 24, num_hidden_layers: 2, num_attention_heads: 4,
  num_key_value_heads: 2, vocab_size: 262, max_position_embeddings: 64, rope_theta: 10000, rms_norm_eps: 1e-5,
});

function setup(): { model: LlamaModel; adapter: LoraAdapter; tokens: number[]; rows: Int32Array; coef: Float64Array } {
  const model = initModel(config, 3);
  const rng = new SeededRandom(11);
  // Larger-than-init weights so every path carries a gradient well above float32 noise.
  const perturb = (a: Float32Array, std: number) => { for (let i = 0; i < a.length; i++) a[i] += rng.normal() * std; };
  perturb(model.weights.embed, 0.5);
  perturb(model.weights.lmHead, 0.3);
  perturb(model.weights.finalNorm, 0.2);
  for (const layer of model.weights.layers) {
    for (const p of PROJECTIONS) perturb(layer.proj[p], 0.25);
    perturb(layer.inputNorm, 0.2);
    perturb(layer.postAttentionNorm, 0.2);
  }
  const adapter = createAdapter(model, { rank: 2, alpha: 4, seed: 5 });
  for (const layer of adapter.layers) for (const pair of Object.values(layer)) perturb(pair!.b, 0.2);
  const tokens = [256, 72, 105, 33, 257, 260, 65, 66, 300 % 262];
  const rows = Int32Array.from([1, 3, 5, 6, 7]);
  const coef = Float64Array.from(rows, () => rng.normal());
  return { model, adapter, tokens, rows, coef };
}

function loss(s: ReturnType<typeof setup>): number {
  const { logprobs } = scoreSequence(s.model, s.adapter, s.tokens, s.rows, false);
  let total = 0;
  for (let r = 0; r < logprobs.length; r++) total += s.coef[r] * logprobs[r];
  return total;
}

function analytic(s: ReturnType<typeof setup>) {
  const scored = scoreSequence(s.model, s.adapter, s.tokens, s.rows, true);
  const dLogits = logprobGradientToLogits(scored, s.tokens, s.rows, s.coef, config.vocabSize);
  const grads = { base: zeroModelGradients(s.model), lora: zeroLoraGradients(s.adapter) };
  backward(s.model, s.adapter, scored.trace!, dLogits, grads);
  return grads;
}

/** Central differences on a few coordinates (the ones with the largest analytic gradient, plus random ones). */
function check(s: ReturnType<typeof setup>, param: Float32Array, grad: Float32Array, label: string): void {
  const rng = new SeededRandom(label.length * 7919);
  const byMagnitude = [...grad.keys()].sort((a, b) => Math.abs(grad[b]) - Math.abs(grad[a]));
  const indices = [...byMagnitude.slice(0, 4), ...Array.from({ length: 3 }, () => rng.int(grad.length))];
  const eps = 1e-2;
  let checked = 0;
  for (const i of indices) {
    const saved = param[i];
    param[i] = saved + eps;
    const plus = loss(s);
    param[i] = saved - eps;
    const minus = loss(s);
    param[i] = saved;
    const numeric = (plus - minus) / (2 * eps);
    expect(Math.abs(numeric - grad[i]), `${label}[${i}] numeric ${numeric} analytic ${grad[i]}`).toBeLessThanOrEqual(
      3e-3 + 3e-2 * Math.max(Math.abs(numeric), Math.abs(grad[i])),
    );
    if (Math.abs(grad[i]) > 1e-3) checked++;
  }
  expect(checked, `${label}: gradient is non-trivial`).toBeGreaterThan(0);
}

describe('backward pass matches finite differences', () => {
  const s = setup();
  const g = analytic(s);

  it('embedding and lm_head', () => {
    check(s, s.model.weights.embed, g.base.embed, 'embed');
    check(s, s.model.weights.lmHead, g.base.lmHead, 'lm_head');
  });

  it('RMSNorm gains (input, post-attention, final)', () => {
    check(s, s.model.weights.finalNorm, g.base.finalNorm, 'model.norm');
    for (let l = 0; l < 2; l++) {
      check(s, s.model.weights.layers[l].inputNorm, g.base.layers[l].inputNorm, `input_layernorm.${l}`);
      check(s, s.model.weights.layers[l].postAttentionNorm, g.base.layers[l].postAttentionNorm, `post_attention_layernorm.${l}`);
    }
  });

  it('attention projections (rotary, GQA, causal softmax)', () => {
    for (let l = 0; l < 2; l++) {
      for (const p of ['q_proj', 'k_proj', 'v_proj', 'o_proj'] as const) check(s, s.model.weights.layers[l].proj[p], g.base.layers[l].proj[p], `${p}.${l}`);
    }
  });

  it('SwiGLU MLP projections', () => {
    for (let l = 0; l < 2; l++) {
      for (const p of ['gate_proj', 'up_proj', 'down_proj'] as const) check(s, s.model.weights.layers[l].proj[p], g.base.layers[l].proj[p], `${p}.${l}`);
    }
  });

  it('LoRA A and B on every projection', () => {
    for (let l = 0; l < 2; l++) {
      for (const p of PROJECTIONS) {
        check(s, s.adapter.layers[l][p]!.a, g.lora[l][p]!.a, `lora_A.${p}.${l}`);
        check(s, s.adapter.layers[l][p]!.b, g.lora[l][p]!.b, `lora_B.${p}.${l}`);
      }
    }
  });
});
