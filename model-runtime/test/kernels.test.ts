import { describe, expect, it } from 'vitest';
import { matmulDyW, matmulXWt, matmulXWtScalar } from '../kernels.js';
import { SeededRandom } from '../rng.js';
import { committedMatmulModule, generatedMatmulModule } from '../scripts/build-wasm-kernels.js';

const rng = new SeededRandom(17);
const randoms = (n: number) => Float32Array.from({ length: n }, () => rng.normal());

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('SIMD matrix multiply', () => {
  // Shapes of the model (64×128·128×352, a decode row, the 262-token vocabulary) and odd ones that need padding.
  const shapes: Array<[number, number, number]> = [[64, 128, 352], [1, 128, 352], [5, 262, 128], [3, 7, 5], [2, 8, 128], [7, 37, 262], [1, 1, 1]];

  it.each(shapes)('matches the scalar kernel for %i×%i · %i×… (overwrite and accumulate)', (M, K, N) => {
    const x = randoms(M * K);
    const w = randoms(N * K);
    for (const accumulate of [false, true]) {
      const start = randoms(M * N);
      const expected = start.slice();
      const actual = start.slice();
      matmulXWtScalar(x, M, K, w, N, expected, accumulate);
      matmulXWt(x, M, K, w, N, actual, accumulate);
      expect(maxAbsDiff(actual, expected)).toBeLessThan(1e-4 * Math.sqrt(K));
    }
  });

  it('gives every row the same bits whether it is multiplied alone or inside a batch', () => {
    // Decoding multiplies one row at a time, scoring a whole sequence at once; RL relies on their logprobs agreeing exactly.
    const [M, K, N] = [9, 128, 352];
    const x = randoms(M * K);
    const w = randoms(N * K);
    const batched = new Float32Array(M * N);
    matmulXWt(x, M, K, w, N, batched);
    for (let r = 0; r < M; r++) {
      const single = new Float32Array(N);
      matmulXWt(x.subarray(r * K, (r + 1) * K), 1, K, w, N, single);
      expect(Array.from(single)).toEqual(Array.from(batched.subarray(r * N, (r + 1) * N)));
    }
  });

  it('accumulates dy·W for changing weights (the LoRA input gradient)', () => {
    const [T, outF, inF] = [6, 8, 130];
    const dy = randoms(T * outF);
    const w = randoms(outF * inF);
    const dx = randoms(T * inF);
    const expected = Float32Array.from(dx, (v, idx) => {
      const t = Math.floor(idx / inF);
      const i = idx % inF;
      let s = v;
      for (let o = 0; o < outF; o++) s += dy[t * outF + o] * w[o * inF + i];
      return s;
    });
    matmulDyW(dy, T, outF, w, inF, dx);
    expect(maxAbsDiff(dx, expected)).toBeLessThan(1e-4);
    w[0] += 1; // a changed weight is seen on the next call (nothing cached)
    const again = new Float32Array(T * inF);
    matmulDyW(dy, T, outF, w, inF, again);
    expect(again[0]).toBeCloseTo(dy[0] * w[0] + Array.from({ length: outF - 1 }, (_, o) => dy[o + 1] * w[(o + 1) * inF]).reduce((a, b) => a + b, 0), 4);
  });

  it('ships WebAssembly bytes that match wasm/matmul.wat', async () => {
    expect(committedMatmulModule()).toBe(await generatedMatmulModule());
  });
});
