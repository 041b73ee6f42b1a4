/**
 * Float32Array linear-algebra kernels. Weights use the Hugging Face [out × in]
 * row-major layout, so y = x·Wᵀ is a set of dot products over contiguous rows —
 * the cache-friendly direction. Every matrix product of the model goes through
 * matmulXWt, which runs on the WebAssembly SIMD kernel (wasm-matmul.ts; about
 * six times the scalar kernel below, measured by bench/model-runtime.ts).
 */
import { matmulXWtWasm } from './wasm-matmul.js';

/** y[T×out] (+)= x[T×in] · Wᵀ with W stored [out×in]. */
export function matmulXWt(
  x: Float32Array,
  rows: number,
  inF: number,
  w: Float32Array,
  outF: number,
  y: Float32Array,
  accumulate = false,
): void {
  matmulXWtWasm(x, rows, inF, w, outF, y, accumulate);
}

/**
 * The same product in plain JavaScript, register-blocked (2 rows of x × 4 rows of W
 * cut memory traffic per multiply-add). Kept as the reference the SIMD kernel is
 * tested against and as a benchmark baseline.
 */
export function matmulXWtScalar(
  x: Float32Array,
  rows: number,
  inF: number,
  w: Float32Array,
  outF: number,
  y: Float32Array,
  accumulate = false,
): void {
  let t = 0;
  for (; t + 1 < rows; t += 2) {
    const x0 = t * inF;
    const x1 = x0 + inF;
    const y0 = t * outF;
    const y1 = y0 + outF;
    let o = 0;
    for (; o + 3 < outF; o += 4) {
      const w0 = o * inF;
      const w1 = w0 + inF;
      const w2 = w1 + inF;
      const w3 = w2 + inF;
      let s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
      for (let i = 0; i < inF; i++) {
        const a = x[x0 + i];
        const b = x[x1 + i];
        const c0 = w[w0 + i];
        const c1 = w[w1 + i];
        const c2 = w[w2 + i];
        const c3 = w[w3 + i];
        s00 += a * c0; s01 += a * c1; s02 += a * c2; s03 += a * c3;
        s10 += b * c0; s11 += b * c1; s12 += b * c2; s13 += b * c3;
      }
      if (accumulate) {
        y[y0 + o] += s00; y[y0 + o + 1] += s01; y[y0 + o + 2] += s02; y[y0 + o + 3] += s03;
        y[y1 + o] += s10; y[y1 + o + 1] += s11; y[y1 + o + 2] += s12; y[y1 + o + 3] += s13;
      } else {
        y[y0 + o] = s00; y[y0 + o + 1] = s01; y[y0 + o + 2] = s02; y[y0 + o + 3] = s03;
        y[y1 + o] = s10; y[y1 + o + 1] = s11; y[y1 + o + 2] = s12; y[y1 + o + 3] = s13;
      }
    }
    for (; o < outF; o++) {
      const w0 = o * inF;
      let s0 = 0, s1 = 0;
      for (let i = 0; i < inF; i++) {
        s0 += x[x0 + i] * w[w0 + i];
        s1 += x[x1 + i] * w[w0 + i];
      }
      if (accumulate) { y[y0 + o] += s0; y[y1 + o] += s1; } else { y[y0 + o] = s0; y[y1 + o] = s1; }
    }
  }
  for (; t < rows; t++) {
    const x0 = t * inF;
    const y0 = t * outF;
    let o = 0;
    for (; o + 3 < outF; o += 4) {
      const w0 = o * inF;
      const w1 = w0 + inF;
      const w2 = w1 + inF;
      const w3 = w2 + inF;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let i = 0; i < inF; i++) {
        const a = x[x0 + i];
        s0 += a * w[w0 + i]; s1 += a * w[w1 + i]; s2 += a * w[w2 + i]; s3 += a * w[w3 + i];
      }
      if (accumulate) {
        y[y0 + o] += s0; y[y0 + o + 1] += s1; y[y0 + o + 2] += s2; y[y0 + o + 3] += s3;
      } else {
        y[y0 + o] = s0; y[y0 + o + 1] = s1; y[y0 + o + 2] = s2; y[y0 + o + 3] = s3;
      }
    }
    for (; o < outF; o++) {
      const w0 = o * inF;
      let s = 0;
      for (let i = 0; i < inF; i++) s += x[x0 + i] * w[w0 + i];
      if (accumulate) y[y0 + o] += s; else y[y0 + o] = s;
    }
  }
}

let transposeCache = new WeakMap<Float32Array, Float32Array>();

/**
 * Wᵀ ([in×out]) of a frozen weight, cached: dx = dy·W then runs on the fast
 * blocked dot-product kernel instead of strided axpy updates. Callers that
 * change weights in place (full-model training) must call forgetTransposedWeights().
 */
export function transposedWeight(w: Float32Array, outF: number, inF: number): Float32Array {
  let t = transposeCache.get(w);
  if (!t) {
    t = new Float32Array(w.length);
    for (let o = 0; o < outF; o++) for (let i = 0; i < inF; i++) t[i * outF + o] = w[o * inF + i];
    transposeCache.set(w, t);
  }
  return t;
}

export function forgetTransposedWeights(): void {
  transposeCache = new WeakMap();
}

/**
 * dx[T×in] += dy[T×out] · W, with W stored [out×in] (the input-gradient of y = x·Wᵀ),
 * for weights that may change between calls (LoRA matrices, small): Wᵀ is built
 * afresh each call, then the product runs on the SIMD kernel. Frozen base weights
 * use transposedWeight() + matmulXWt instead.
 */
export function matmulDyW(dy: Float32Array, rows: number, outF: number, w: Float32Array, inF: number, dx: Float32Array): void {
  const wT = new Float32Array(inF * outF);
  for (let o = 0; o < outF; o++) for (let i = 0; i < inF; i++) wT[i * outF + o] = w[o * inF + i];
  matmulXWt(dy, rows, outF, wT, inF, dx, true);
}

/**
 * dW[out×in] += dyᵀ · x (the weight-gradient of y = x·Wᵀ), summed over the T rows.
 * Both operands are transposed first (O(T·(in+out)), cheap) so the product runs
 * on the blocked dot-product kernel with T as the inner dimension.
 */
export function matmulDyTX(dy: Float32Array, rows: number, outF: number, x: Float32Array, inF: number, dw: Float32Array): void {
  const dyT = new Float32Array(outF * rows);
  for (let t = 0; t < rows; t++) for (let o = 0; o < outF; o++) dyT[o * rows + t] = dy[t * outF + o];
  const xT = new Float32Array(inF * rows);
  for (let t = 0; t < rows; t++) for (let i = 0; i < inF; i++) xT[i * rows + t] = x[t * inF + i];
  matmulXWt(dyT, outF, rows, xT, inF, dw, true);
}

/** Textbook i-j-k triple loop, C = A·B with B [in×out]; kept only as the benchmark baseline. */
export function matmulNaive(a: Float32Array, rows: number, inF: number, b: Float32Array, outF: number, c: Float32Array): void {
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < outF; j++) {
      let s = 0;
      for (let k = 0; k < inF; k++) s += a[i * inF + k] * b[k * outF + j];
      c[i * outF + j] = s;
    }
  }
}

/** RMSNorm of each row; returns the per-row 1/rms needed by the backward pass. */
export function rmsNormForward(x: Float32Array, rows: number, dim: number, gain: Float32Array, eps: number, y: Float32Array): Float32Array {
  const inv = new Float32Array(rows);
  for (let t = 0; t < rows; t++) {
    const o = t * dim;
    let ss = 0;
    for (let i = 0; i < dim; i++) ss += x[o + i] * x[o + i];
    const r = 1 / Math.sqrt(ss / dim + eps);
    inv[t] = r;
    for (let i = 0; i < dim; i++) y[o + i] = x[o + i] * r * gain[i];
  }
  return inv;
}

/** dx += RMSNorm backward; dGain (optional) += Σ dy·x̂. */
export function rmsNormBackward(
  dy: Float32Array, x: Float32Array, inv: Float32Array, rows: number, dim: number, gain: Float32Array,
  dx: Float32Array, dGain: Float32Array | null,
): void {
  for (let t = 0; t < rows; t++) {
    const o = t * dim;
    const r = inv[t];
    let dot = 0;
    for (let i = 0; i < dim; i++) dot += dy[o + i] * gain[i] * x[o + i] * r;
    const m = dot / dim;
    for (let i = 0; i < dim; i++) {
      const xhat = x[o + i] * r;
      dx[o + i] += r * (dy[o + i] * gain[i] - xhat * m);
      if (dGain) dGain[i] += dy[o + i] * xhat;
    }
  }
}

/** Row-wise log-softmax in place-free form: writes log-probabilities to out. */
export function logSoftmaxRow(logits: Float32Array, offset: number, n: number, out: Float32Array, outOffset: number): void {
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logits[offset + i] > max) max = logits[offset + i];
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[offset + i] - max);
  const lse = max + Math.log(sum);
  for (let i = 0; i < n; i++) out[outOffset + i] = logits[offset + i] - lse;
}

export function silu(a: number): number {
  return a / (1 + Math.exp(-a));
}
