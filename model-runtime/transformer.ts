/**
 * Llama forward pass (with KV cache, used by generation and training alike, so
 * sampling-time and training-time logprobs come from the same code) and the
 * hand-written backward pass for training.
 */
import { matmulDyTX, matmulDyW, matmulXWt, rmsNormBackward, rmsNormForward, transposedWeight } from './kernels.js';
import type { LoraAdapter, LoraPair } from './lora-adapter.js';
import type { LlamaConfig } from './model-config.js';
import { type LlamaModel, type ModelWeights, PROJECTIONS, type ProjectionName, projectionShape } from './model.js';

export interface KvCache {
  keys: Float32Array[]; // per layer [capacity × kvDim], already rotated
  values: Float32Array[];
  length: number;
  capacity: number;
}

export function createKvCache(c: LlamaConfig, capacity: number): KvCache {
  const kvDim = c.numKvHeads * c.headDim;
  return {
    keys: Array.from({ length: c.numLayers }, () => new Float32Array(capacity * kvDim)),
    values: Array.from({ length: c.numLayers }, () => new Float32Array(capacity * kvDim)),
    length: 0,
    capacity,
  };
}

export function cloneKvCache(cache: KvCache): KvCache {
  return { keys: cache.keys.map((k) => k.slice()), values: cache.values.map((v) => v.slice()), length: cache.length, capacity: cache.capacity };
}

interface RopeTable {
  cos: Float32Array; // [maxPos × headDim/2]
  sin: Float32Array;
}
const ropeTables = new WeakMap<LlamaConfig, RopeTable>();

function ropeTable(c: LlamaConfig): RopeTable {
  let table = ropeTables.get(c);
  if (!table) {
    const half = c.headDim / 2;
    const cos = new Float32Array(c.maxPositionEmbeddings * half);
    const sin = new Float32Array(c.maxPositionEmbeddings * half);
    for (let p = 0; p < c.maxPositionEmbeddings; p++) {
      for (let i = 0; i < half; i++) {
        const angle = p / Math.pow(c.ropeTheta, (2 * i) / c.headDim);
        cos[p * half + i] = Math.cos(angle);
        sin[p * half + i] = Math.sin(angle);
      }
    }
    table = { cos, sin };
    ropeTables.set(c, table);
  }
  return table;
}

/** Rotate each head in place (HF "rotate_half" convention: pairs i and i + headDim/2). inverse=true undoes it (for gradients). */
export function applyRope(x: Float32Array, rows: number, heads: number, c: LlamaConfig, pos0: number, inverse: boolean): void {
  const { cos, sin } = ropeTable(c);
  const half = c.headDim / 2;
  const sign = inverse ? -1 : 1;
  for (let t = 0; t < rows; t++) {
    const tab = (pos0 + t) * half;
    for (let h = 0; h < heads; h++) {
      const o = (t * heads + h) * c.headDim;
      for (let i = 0; i < half; i++) {
        const co = cos[tab + i];
        const si = sign * sin[tab + i];
        const x1 = x[o + i];
        const x2 = x[o + i + half];
        x[o + i] = x1 * co - x2 * si;
        x[o + i + half] = x2 * co + x1 * si;
      }
    }
  }
}

interface LayerTrace {
  xIn: Float32Array;
  inv1: Float32Array;
  xn1: Float32Array;
  q: Float32Array; // rotated
  probs: Float32Array; // [heads × T × T]
  attnOut: Float32Array;
  xMid: Float32Array;
  inv2: Float32Array;
  xn2: Float32Array;
  gate: Float32Array;
  /** sigmoid(gate), kept so the backward pass does not recompute the exponentials. */
  gateSigmoid: Float32Array;
  up: Float32Array;
  act: Float32Array;
  loraXa: Partial<Record<ProjectionName, Float32Array>>;
}

export interface ForwardTrace {
  tokens: readonly number[];
  rows: Int32Array;
  layers: LayerTrace[];
  cache: KvCache;
  xFinal: Float32Array;
  invF: Float32Array;
  xnRows: Float32Array;
}

export interface ForwardOptions {
  /** Positions (within this chunk) whose logits are wanted; default: the last one. */
  rows?: Int32Array;
  /** Keep activations for backward(); only valid when the cache starts empty. */
  trace?: boolean;
}

/** y = x·Wᵀ + scale·(x·Aᵀ)·Bᵀ; returns x·Aᵀ (needed by backward) when there is a LoRA pair. */
function linear(x: Float32Array, rows: number, w: Float32Array, inF: number, outF: number, lora: LoraPair | undefined, scale: number, y: Float32Array): Float32Array | undefined {
  matmulXWt(x, rows, inF, w, outF, y);
  if (!lora) return undefined;
  const r = lora.a.length / inF;
  const xa = new Float32Array(rows * r);
  matmulXWt(x, rows, inF, lora.a, r, xa);
  const scaled = new Float32Array(xa.length);
  for (let i = 0; i < xa.length; i++) scaled[i] = xa[i] * scale;
  matmulXWt(scaled, rows, r, lora.b, outF, y, true);
  return xa;
}

/**
 * Run `tokens` through the model at positions cache.length…, append their keys and
 * values to the cache, and return logits [rows × vocab] for the requested rows.
 */
export function forward(
  model: LlamaModel,
  adapter: LoraAdapter | null,
  tokens: readonly number[],
  cache: KvCache,
  options: ForwardOptions = {},
): { logits: Float32Array; trace?: ForwardTrace } {
  const c = model.config;
  const w = model.weights;
  const T = tokens.length;
  const d = c.hiddenSize;
  const hd = c.headDim;
  const qDim = c.numHeads * hd;
  const kvDim = c.numKvHeads * hd;
  const ff = c.intermediateSize;
  const pos0 = cache.length;
  if (pos0 + T > cache.capacity) throw new RangeError(`KV cache capacity ${cache.capacity} exceeded`);
  const S = pos0 + T;
  const group = c.numHeads / c.numKvHeads;
  const scale = 1 / Math.sqrt(hd);
  const keepTrace = options.trace === true;
  if (keepTrace && pos0 !== 0) throw new Error('trace requires an empty KV cache');
  const rows = options.rows ?? Int32Array.of(T - 1);

  let x = new Float32Array(T * d);
  for (let t = 0; t < T; t++) x.set(w.embed.subarray(tokens[t] * d, (tokens[t] + 1) * d), t * d);

  const layerTraces: LayerTrace[] = [];
  const scores = new Float32Array(S);
  for (let l = 0; l < c.numLayers; l++) {
    const lw = w.layers[l];
    const lora = adapter?.layers[l];
    const s = adapter?.scale ?? 0;
    const loraXa: Partial<Record<ProjectionName, Float32Array>> = {};
    const xn1 = new Float32Array(T * d);
    const inv1 = rmsNormForward(x, T, d, lw.inputNorm, c.rmsNormEps, xn1);
    const q = new Float32Array(T * qDim);
    const k = new Float32Array(T * kvDim);
    const v = new Float32Array(T * kvDim);
    loraXa.q_proj = linear(xn1, T, lw.proj.q_proj, d, qDim, lora?.q_proj, s, q);
    loraXa.k_proj = linear(xn1, T, lw.proj.k_proj, d, kvDim, lora?.k_proj, s, k);
    loraXa.v_proj = linear(xn1, T, lw.proj.v_proj, d, kvDim, lora?.v_proj, s, v);
    applyRope(q, T, c.numHeads, c, pos0, false);
    applyRope(k, T, c.numKvHeads, c, pos0, false);
    const K = cache.keys[l];
    const V = cache.values[l];
    K.set(k, pos0 * kvDim);
    V.set(v, pos0 * kvDim);

    const attnOut = new Float32Array(T * qDim);
    const probs = keepTrace ? new Float32Array(c.numHeads * T * T) : undefined;
    for (let t = 0; t < T; t++) {
      const last = pos0 + t; // causal: attend to positions 0..last
      for (let h = 0; h < c.numHeads; h++) {
        const qo = t * qDim + h * hd;
        const ko = Math.floor(h / group) * hd;
        let max = -Infinity;
        for (let p = 0; p <= last; p++) {
          const kb = p * kvDim + ko;
          let dot = 0;
          for (let j = 0; j < hd; j++) dot += q[qo + j] * K[kb + j];
          dot *= scale;
          scores[p] = dot;
          if (dot > max) max = dot;
        }
        let sum = 0;
        for (let p = 0; p <= last; p++) {
          const e = Math.exp(scores[p] - max);
          scores[p] = e;
          sum += e;
        }
        const inv = 1 / sum;
        for (let p = 0; p <= last; p++) {
          const pr = scores[p] * inv;
          if (probs) probs[(h * T + t) * T + p] = pr;
          const vb = p * kvDim + ko;
          for (let j = 0; j < hd; j++) attnOut[qo + j] += pr * V[vb + j];
        }
      }
    }
    const o = new Float32Array(T * d);
    loraXa.o_proj = linear(attnOut, T, lw.proj.o_proj, qDim, d, lora?.o_proj, s, o);
    const xMid = new Float32Array(T * d);
    for (let i = 0; i < xMid.length; i++) xMid[i] = x[i] + o[i];

    const xn2 = new Float32Array(T * d);
    const inv2 = rmsNormForward(xMid, T, d, lw.postAttentionNorm, c.rmsNormEps, xn2);
    const gate = new Float32Array(T * ff);
    const up = new Float32Array(T * ff);
    loraXa.gate_proj = linear(xn2, T, lw.proj.gate_proj, d, ff, lora?.gate_proj, s, gate);
    loraXa.up_proj = linear(xn2, T, lw.proj.up_proj, d, ff, lora?.up_proj, s, up);
    const act = new Float32Array(T * ff);
    const gateSigmoid = keepTrace ? new Float32Array(T * ff) : undefined;
    for (let i = 0; i < act.length; i++) {
      const g = gate[i];
      const sig = 1 / (1 + Math.exp(-g));
      if (gateSigmoid) gateSigmoid[i] = sig;
      act[i] = g * sig * up[i];
    }
    const down = new Float32Array(T * d);
    loraXa.down_proj = linear(act, T, lw.proj.down_proj, ff, d, lora?.down_proj, s, down);
    const xOut = new Float32Array(T * d);
    for (let i = 0; i < xOut.length; i++) xOut[i] = xMid[i] + down[i];
    if (keepTrace) layerTraces.push({ xIn: x, inv1, xn1, q, probs: probs!, attnOut, xMid, inv2, xn2, gate, gateSigmoid: gateSigmoid!, up, act, loraXa });
    x = xOut;
  }
  cache.length = S;

  // Final norm and lm_head only for the requested rows: most positions' logits are never used.
  const R = rows.length;
  const xRows = new Float32Array(R * d);
  for (let r = 0; r < R; r++) xRows.set(x.subarray(rows[r] * d, (rows[r] + 1) * d), r * d);
  const xnRows = new Float32Array(R * d);
  const invF = rmsNormForward(xRows, R, d, w.finalNorm, c.rmsNormEps, xnRows);
  const logits = new Float32Array(R * c.vocabSize);
  matmulXWt(xnRows, R, d, w.lmHead, c.vocabSize, logits);
  const trace = keepTrace ? { tokens, rows, layers: layerTraces, cache, xFinal: xRows, invF, xnRows } : undefined;
  return { logits, trace };
}

export type LoraGradients = Array<Partial<Record<ProjectionName, { a: Float32Array; b: Float32Array }>>>;

export interface Gradients {
  /** Full-model gradients (base-model training); null when the base is frozen. */
  base: ModelWeights | null;
  lora: LoraGradients | null;
}

export function zeroModelGradients(model: LlamaModel): ModelWeights {
  const w = model.weights;
  const embed = new Float32Array(w.embed.length);
  return {
    embed,
    layers: w.layers.map((l) => ({
      inputNorm: new Float32Array(l.inputNorm.length),
      postAttentionNorm: new Float32Array(l.postAttentionNorm.length),
      proj: Object.fromEntries(PROJECTIONS.map((p) => [p, new Float32Array(l.proj[p].length)])) as Record<ProjectionName, Float32Array>,
    })),
    finalNorm: new Float32Array(w.finalNorm.length),
    lmHead: w.lmHead === w.embed ? embed : new Float32Array(w.lmHead.length),
  };
}

export function zeroLoraGradients(adapter: LoraAdapter): LoraGradients {
  return adapter.layers.map((layer) => {
    const g: Partial<Record<ProjectionName, { a: Float32Array; b: Float32Array }>> = {};
    for (const [p, pair] of Object.entries(layer) as [ProjectionName, LoraPair][]) {
      g[p] = { a: new Float32Array(pair.a.length), b: new Float32Array(pair.b.length) };
    }
    return g;
  });
}

function linearBackward(
  dy: Float32Array, rows: number, x: Float32Array, w: Float32Array, inF: number, outF: number,
  dx: Float32Array, dw: Float32Array | null,
  lora: LoraPair | undefined, scale: number, xa: Float32Array | undefined, dLora: { a: Float32Array; b: Float32Array } | undefined,
): void {
  matmulXWt(dy, rows, outF, transposedWeight(w, outF, inF), inF, dx, true);
  if (dw) matmulDyTX(dy, rows, outF, x, inF, dw);
  if (!lora || !xa) return;
  const r = lora.a.length / inF;
  const dyB = new Float32Array(rows * r);
  matmulDyW(dy, rows, outF, lora.b, r, dyB);
  for (let i = 0; i < dyB.length; i++) dyB[i] *= scale;
  matmulDyW(dyB, rows, r, lora.a, inF, dx);
  if (dLora) {
    const xaScaled = new Float32Array(xa.length);
    for (let i = 0; i < xa.length; i++) xaScaled[i] = xa[i] * scale;
    matmulDyTX(dy, rows, outF, xaScaled, r, dLora.b);
    matmulDyTX(dyB, rows, r, x, inF, dLora.a);
  }
}

/** Accumulate gradients of a scalar loss given dLoss/dlogits for the traced rows. */
export function backward(model: LlamaModel, adapter: LoraAdapter | null, trace: ForwardTrace, dLogits: Float32Array, grads: Gradients): void {
  const c = model.config;
  const w = model.weights;
  const T = trace.tokens.length;
  const d = c.hiddenSize;
  const hd = c.headDim;
  const qDim = c.numHeads * hd;
  const kvDim = c.numKvHeads * hd;
  const ff = c.intermediateSize;
  const group = c.numHeads / c.numKvHeads;
  const scale = 1 / Math.sqrt(hd);
  const R = trace.rows.length;
  const gb = grads.base;

  const dxnRows = new Float32Array(R * d);
  matmulXWt(dLogits, R, c.vocabSize, transposedWeight(w.lmHead, c.vocabSize, d), d, dxnRows);
  if (gb) matmulDyTX(dLogits, R, c.vocabSize, trace.xnRows, d, gb.lmHead);
  const dxRows = new Float32Array(R * d);
  rmsNormBackward(dxnRows, trace.xFinal, trace.invF, R, d, w.finalNorm, dxRows, gb ? gb.finalNorm : null);
  let dx = new Float32Array(T * d);
  for (let r = 0; r < R; r++) {
    const o = trace.rows[r] * d;
    for (let i = 0; i < d; i++) dx[o + i] += dxRows[r * d + i];
  }

  for (let l = c.numLayers - 1; l >= 0; l--) {
    const lt = trace.layers[l];
    const lw = w.layers[l];
    const lora = adapter?.layers[l];
    const s = adapter?.scale ?? 0;
    const gl = gb?.layers[l];
    const dl = grads.lora?.[l];

    // MLP: xOut = xMid + down(silu(gate) * up)
    const dAct = new Float32Array(T * ff);
    linearBackward(dx, T, lt.act, lw.proj.down_proj, ff, d, dAct, gl ? gl.proj.down_proj : null, lora?.down_proj, s, lt.loraXa.down_proj, dl?.down_proj);
    const dGate = new Float32Array(T * ff);
    const dUp = new Float32Array(T * ff);
    for (let i = 0; i < dAct.length; i++) {
      const g = lt.gate[i];
      const sig = lt.gateSigmoid[i];
      dUp[i] = dAct[i] * g * sig;
      dGate[i] = dAct[i] * lt.up[i] * sig * (1 + g * (1 - sig));
    }
    const dxn2 = new Float32Array(T * d);
    linearBackward(dGate, T, lt.xn2, lw.proj.gate_proj, d, ff, dxn2, gl ? gl.proj.gate_proj : null, lora?.gate_proj, s, lt.loraXa.gate_proj, dl?.gate_proj);
    linearBackward(dUp, T, lt.xn2, lw.proj.up_proj, d, ff, dxn2, gl ? gl.proj.up_proj : null, lora?.up_proj, s, lt.loraXa.up_proj, dl?.up_proj);
    const dxMid = dx; // residual branch passes straight through
    rmsNormBackward(dxn2, lt.xMid, lt.inv2, T, d, lw.postAttentionNorm, dxMid, gl ? gl.postAttentionNorm : null);

    // Attention: xMid = xIn + o_proj(attention(q, k, v))
    const dAttn = new Float32Array(T * qDim);
    linearBackward(dxMid, T, lt.attnOut, lw.proj.o_proj, qDim, d, dAttn, gl ? gl.proj.o_proj : null, lora?.o_proj, s, lt.loraXa.o_proj, dl?.o_proj);
    const K = trace.cache.keys[l];
    const V = trace.cache.values[l];
    const dq = new Float32Array(T * qDim);
    const dk = new Float32Array(T * kvDim);
    const dv = new Float32Array(T * kvDim);
    const dP = new Float32Array(T);
    for (let h = 0; h < c.numHeads; h++) {
      const ko = Math.floor(h / group) * hd;
      for (let t = 0; t < T; t++) {
        const qo = t * qDim + h * hd;
        const pRow = (h * T + t) * T;
        let sum = 0;
        for (let p = 0; p <= t; p++) {
          const vb = p * kvDim + ko;
          let dot = 0;
          for (let j = 0; j < hd; j++) dot += dAttn[qo + j] * V[vb + j];
          dP[p] = dot;
          const pr = lt.probs[pRow + p];
          sum += pr * dot;
          for (let j = 0; j < hd; j++) dv[vb + j] += pr * dAttn[qo + j];
        }
        for (let p = 0; p <= t; p++) {
          const dS = lt.probs[pRow + p] * (dP[p] - sum) * scale;
          if (dS === 0) continue;
          const kb = p * kvDim + ko;
          for (let j = 0; j < hd; j++) {
            dq[qo + j] += dS * K[kb + j];
            dk[kb + j] += dS * lt.q[qo + j];
          }
        }
      }
    }
    applyRope(dq, T, c.numHeads, c, 0, true);
    applyRope(dk, T, c.numKvHeads, c, 0, true);
    const dxn1 = new Float32Array(T * d);
    linearBackward(dq, T, lt.xn1, lw.proj.q_proj, d, qDim, dxn1, gl ? gl.proj.q_proj : null, lora?.q_proj, s, lt.loraXa.q_proj, dl?.q_proj);
    linearBackward(dk, T, lt.xn1, lw.proj.k_proj, d, kvDim, dxn1, gl ? gl.proj.k_proj : null, lora?.k_proj, s, lt.loraXa.k_proj, dl?.k_proj);
    linearBackward(dv, T, lt.xn1, lw.proj.v_proj, d, kvDim, dxn1, gl ? gl.proj.v_proj : null, lora?.v_proj, s, lt.loraXa.v_proj, dl?.v_proj);
    const dxIn = dxMid;
    rmsNormBackward(dxn1, lt.xIn, lt.inv1, T, d, lw.inputNorm, dxIn, gl ? gl.inputNorm : null);
    dx = dxIn;
  }
  if (gb) {
    for (let t = 0; t < T; t++) {
      const e = trace.tokens[t] * d;
      for (let i = 0; i < d; i++) gb.embed[e + i] += dx[t * d + i];
    }
  }
}

/** Shapes check used by tests and by adapters: all projections of a config. */
export function projectionShapes(c: LlamaConfig): Record<ProjectionName, [number, number]> {
  return Object.fromEntries(PROJECTIONS.map((p) => [p, projectionShape(c, p)])) as Record<ProjectionName, [number, number]>;
}
