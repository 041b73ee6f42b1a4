/**
 * y = x·Wᵀ on the WebAssembly SIMD kernel (wasm/matmul.wat). Operands live in
 * JavaScript Float32Arrays, so each call stages x and W (and y when accumulating)
 * into the module's memory, padded with zeros to the kernel's tile sizes, and
 * copies y back. Copies are O(rows·in + in·out + rows·out) against
 * O(rows·in·out) multiply-adds, and memcpy-fast; caching weights in wasm memory
 * instead would go stale whenever a caller changes a weight in place (base-model
 * training, finite-difference gradient checks).
 */
import { MATMUL_WASM_BASE64 } from './wasm/matmul-wasm.generated.js';

// The project compiles without the DOM library, which is where TypeScript declares
// WebAssembly; these are the few members used here (Node provides the global).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const { WebAssembly } = globalThis as unknown as { WebAssembly: WasmApi };

interface MatmulExports {
  memory: WasmMemory;
  gemm_nt(x: number, w: number, y: number, M: number, K: number, N: number, accumulate: number): void;
}

// Compiled and instantiated synchronously on first use (the module is a few hundred bytes), once per thread.
let kernel: MatmulExports | null = null;
let heap = new Float32Array(0);

function instance(): MatmulExports {
  if (!kernel) {
    const module = new WebAssembly.Module(Buffer.from(MATMUL_WASM_BASE64, 'base64'));
    kernel = new WebAssembly.Instance(module, {}).exports as unknown as MatmulExports;
    heap = new Float32Array(kernel.memory.buffer);
  }
  return kernel;
}

function ensureCapacity(k: MatmulExports, floats: number): void {
  const bytes = floats * 4;
  if (bytes > k.memory.buffer.byteLength) {
    k.memory.grow(Math.ceil((bytes - k.memory.buffer.byteLength) / 65536));
  }
  if (heap.buffer !== k.memory.buffer) heap = new Float32Array(k.memory.buffer); // grow() detaches the old view
}

const roundUp = (n: number, m: number) => Math.ceil(n / m) * m;

/** Copy src [rows × cols] into heap at `at` as [rowsP × colsP], zero-padded. */
function stage(src: Float32Array, rows: number, cols: number, at: number, rowsP: number, colsP: number): void {
  if (cols === colsP) {
    heap.set(src.subarray(0, rows * cols), at);
  } else {
    for (let r = 0; r < rows; r++) {
      heap.set(src.subarray(r * cols, (r + 1) * cols), at + r * colsP);
      heap.fill(0, at + r * colsP + cols, at + (r + 1) * colsP);
    }
  }
  if (rowsP > rows) heap.fill(0, at + rows * colsP, at + rowsP * colsP);
}

/** y[rows×outF] (+)= x[rows×inF] · Wᵀ, W stored [outF×inF]. */
export function matmulXWtWasm(
  x: Float32Array, rows: number, inF: number, w: Float32Array, outF: number, y: Float32Array, accumulate: boolean,
): void {
  if (rows === 0 || outF === 0) return;
  const k = instance();
  const Mp = roundUp(rows, 2);
  const Kp = roundUp(inF, 4);
  const Np = roundUp(outF, 4);
  const xAt = 0;
  const wAt = Mp * Kp;
  const yAt = wAt + Np * Kp;
  ensureCapacity(k, yAt + Mp * Np);
  stage(x, rows, inF, xAt, Mp, Kp);
  stage(w, outF, inF, wAt, Np, Kp);
  if (accumulate) stage(y, rows, outF, yAt, Mp, Np);
  k.gemm_nt(xAt * 4, wAt * 4, yAt * 4, Mp, Kp, Np, accumulate ? 1 : 0);
  if (outF === Np) {
    y.set(heap.subarray(yAt, yAt + rows * outF));
  } else {
    for (let r = 0; r < rows; r++) y.set(heap.subarray(yAt + r * Np, yAt + r * Np + outF), r * outF);
  }
}
