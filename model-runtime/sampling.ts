/** Turning one row of logits into a sampled token and its logprobs. */
import { logSoftmaxRow } from './kernels.js';
import type { SeededRandom } from './rng.js';

/** Log-softmax of the raw logits: the model's own distribution, which RL compares against. */
export function rowLogprobs(logits: Float32Array, vocab: number): Float32Array {
  const out = new Float32Array(vocab);
  logSoftmaxRow(logits, 0, vocab, out, 0);
  return out;
}

/**
 * Sample with temperature and nucleus (top-p) filtering; temperature 0 is greedy.
 * `allowed` restricts the choice (used to forbid special tokens other than end-of-turn).
 */
export function sampleToken(logprobs: Float32Array, temperature: number, topP: number, rng: SeededRandom, allowed: (id: number) => boolean): number {
  const n = logprobs.length;
  if (temperature <= 0) {
    let best = -1;
    for (let i = 0; i < n; i++) if (allowed(i) && (best < 0 || logprobs[i] > logprobs[best])) best = i;
    return best;
  }
  const weights = new Float64Array(n);
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (allowed(i) && logprobs[i] / temperature > max) max = logprobs[i] / temperature;
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!allowed(i)) continue;
    weights[i] = Math.exp(logprobs[i] / temperature - max);
    total += weights[i];
  }
  if (topP >= 1) {
    // No nucleus filtering: inverse-CDF sampling in id order, no sort needed.
    let u = rng.next() * total;
    let last = -1;
    for (let i = 0; i < n; i++) {
      if (weights[i] === 0) continue;
      last = i;
      u -= weights[i];
      if (u <= 0) return i;
    }
    return last;
  }
  const ids: number[] = [];
  for (let i = 0; i < n; i++) if (weights[i] > 0) ids.push(i);
  // Ties broken by id so the order (and so the sample) is deterministic.
  ids.sort((a, b) => weights[b] - weights[a] || a - b);
  let kept = ids.length;
  let cumulative = 0;
  for (let k = 0; k < ids.length; k++) {
    cumulative += weights[ids[k]] / total;
    if (cumulative >= topP) { kept = k + 1; break; }
  }
  let keptTotal = 0;
  for (let k = 0; k < kept; k++) keptTotal += weights[ids[k]];
  let u = rng.next() * keptTotal;
  for (let k = 0; k < kept; k++) {
    u -= weights[ids[k]];
    if (u <= 0) return ids[k];
  }
  return ids[kept - 1];
}

/** Indices of the k largest logprobs, best first. */
export function topK(logprobs: Float32Array, k: number): number[] {
  if (k <= 0) return [];
  const ids = Array.from(logprobs.keys());
  ids.sort((a, b) => logprobs[b] - logprobs[a] || a - b);
  return ids.slice(0, k);
}
