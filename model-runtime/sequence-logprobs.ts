/**
 * Log-probabilities of chosen next tokens, and the matching dLoss/dlogits, shared
 * by SFT (loss = −logp), RL (policy-gradient losses) and generation scoring.
 */
import { logSoftmaxRow } from './kernels.js';
import type { LoraAdapter } from './lora-adapter.js';
import type { LlamaModel } from './model.js';
import { type ForwardTrace, createKvCache, forward } from './transformer.js';

export interface ScoredSequence {
  /** logp(tokens[row + 1] | tokens[..row]) for each requested row. */
  logprobs: Float64Array;
  /** Log-softmax of each requested row [rows × vocab]. */
  logSoftmax: Float32Array;
  trace?: ForwardTrace;
}

/** Score `tokens`, returning the logprob of each token at position row+1 for every row in `rows`. */
export function scoreSequence(model: LlamaModel, adapter: LoraAdapter | null, tokens: readonly number[], rows: Int32Array, keepTrace: boolean): ScoredSequence {
  const V = model.config.vocabSize;
  const cache = createKvCache(model.config, tokens.length);
  const { logits, trace } = forward(model, adapter, tokens, cache, { rows, trace: keepTrace });
  const logSoftmax = new Float32Array(logits.length);
  const logprobs = new Float64Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    logSoftmaxRow(logits, r * V, V, logSoftmax, r * V);
    logprobs[r] = logSoftmax[r * V + tokens[rows[r] + 1]];
  }
  return { logprobs, logSoftmax, trace };
}

/**
 * dLoss/dlogits given dLoss/dlogp for each row: d logp_target / d logits = onehot − softmax.
 */
export function logprobGradientToLogits(scored: ScoredSequence, tokens: readonly number[], rows: Int32Array, dLogp: Float64Array, vocab: number): Float32Array {
  const dLogits = new Float32Array(rows.length * vocab);
  for (let r = 0; r < rows.length; r++) {
    const g = dLogp[r];
    if (g === 0) continue;
    const o = r * vocab;
    for (let i = 0; i < vocab; i++) dLogits[o + i] = -g * Math.exp(scored.logSoftmax[o + i]);
    dLogits[o + tokens[rows[r] + 1]] += g;
  }
  return dLogits;
}

/** Rows whose next token is masked in (mask indexes tokens; row t predicts token t+1). */
export function targetRows(mask: ArrayLike<number>): Int32Array {
  const rows: number[] = [];
  for (let t = 1; t < mask.length; t++) if (mask[t]) rows.push(t - 1);
  return Int32Array.from(rows);
}
