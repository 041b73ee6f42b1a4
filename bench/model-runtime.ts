/**
 * Model-runtime benchmarks (docs/benchmarks.md, "Model runtime"):
 *   npx tsc -p tsconfig.build.json && node dist/bench/model-runtime.js [--model models/trellis-tiny]
 * Medians over repetitions; the scalar and naive matmul baselines are measured in the
 * same run, interleaved with the SIMD kernel, because these machines are noisy. Training
 * figures are steady-state: the first steps (JIT warm-up) are not counted.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { matmulNaive, matmulXWt, matmulXWtScalar } from '../model-runtime/kernels.js';
import { DEFAULT_MODEL_DIR, createAdapter, generateSync, loadModel, parameterCount, trainSft } from '../model-runtime/index.js';
import { trainBaseModel } from '../model-runtime/base-model-trainer.js';
import { initModel } from '../model-runtime/model.js';
import { BASE_TASKS, sampleExamples, withAnswer } from '../model-runtime/synthetic-corpus.js';
import { createKvCache, forward } from '../model-runtime/transformer.js';
import { SeededRandom } from '../model-runtime/rng.js';

const { values } = parseArgs({ options: { model: { type: 'string', default: DEFAULT_MODEL_DIR }, reps: { type: 'string', default: '5' } } });
const reps = Number(values.reps);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const model = loadModel(values.model!);
const c = model.config;
// Load average before and after: figures taken on a shared machine are only comparable with it.
const results: Record<string, number | string> = { model: model.name, parameters: parameterCount(model), load_average_1m_at_start: loadavg()[0] };

// 1. Matrix multiply: [64 × 128] · [128 × 352] (an MLP up-projection over a 64-token chunk):
//    the WebAssembly SIMD kernel the model uses, the register-blocked scalar JavaScript kernel, and a naive triple loop.
{
  const rng = new SeededRandom(1);
  const [M, K, N] = [64, c.hiddenSize, c.intermediateSize];
  const a = Float32Array.from({ length: M * K }, () => rng.normal());
  const w = Float32Array.from({ length: N * K }, () => rng.normal());
  const y = new Float32Array(M * N);
  const flops = 2 * M * K * N;
  const timeIt = (fn: () => void, inner: number) => {
    const t = performance.now();
    for (let i = 0; i < inner; i++) fn();
    return (performance.now() - t) / 1000 / inner;
  };
  const simd: number[] = [];
  const scalar: number[] = [];
  const naive: number[] = [];
  for (let i = 0; i < 3; i++) { timeIt(() => matmulXWt(a, M, K, w, N, y), 50); timeIt(() => matmulXWtScalar(a, M, K, w, N, y), 5); timeIt(() => matmulNaive(a, M, K, w, N, y), 2); } // warm-up
  for (let r = 0; r < reps * 2; r++) {
    simd.push(flops / timeIt(() => matmulXWt(a, M, K, w, N, y), 100) / 1e9);
    scalar.push(flops / timeIt(() => matmulXWtScalar(a, M, K, w, N, y), 20) / 1e9);
    naive.push(flops / timeIt(() => matmulNaive(a, M, K, w, N, y), 5) / 1e9);
  }
  results.matmul_shape = `${M}x${K} · ${K}x${N}`;
  results.matmul_simd_gflops = median(simd);
  results.matmul_scalar_blocked_gflops = median(scalar);
  results.matmul_naive_gflops = median(naive);
  results.matmul_simd_over_naive = median(simd) / median(naive);
}

// 2. Generation: one stream decoding token by token with the KV cache, and batched prefill vs token-by-token prefill.
{
  const decodeTokens = 200;
  const decode: number[] = [];
  const prefillBatched: number[] = [];
  const prefillSequential: number[] = [];
  const prompt = Array.from({ length: 256 }, (_, i) => 97 + (i % 26));
  for (let r = 0; r < reps; r++) {
    const cache = createKvCache(c, 8 + decodeTokens);
    forward(model, null, [256, 259, 104, 105, 257, 260], cache);
    let token = 104;
    let t = performance.now();
    for (let i = 0; i < decodeTokens; i++) {
      const { logits } = forward(model, null, [token], cache);
      let best = 0;
      for (let v = 1; v < 256; v++) if (logits[v] > logits[best]) best = v;
      token = best;
    }
    decode.push(decodeTokens / ((performance.now() - t) / 1000));
    t = performance.now();
    forward(model, null, prompt, createKvCache(c, prompt.length));
    prefillBatched.push(prompt.length / ((performance.now() - t) / 1000));
    const seqCache = createKvCache(c, prompt.length);
    t = performance.now();
    for (const tok of prompt) forward(model, null, [tok], seqCache);
    prefillSequential.push(prompt.length / ((performance.now() - t) / 1000));
  }
  results.decode_tokens_per_s = median(decode);
  results.prefill_batched_tokens_per_s = median(prefillBatched);
  results.prefill_token_by_token_tokens_per_s = median(prefillSequential);
  results.prefill_batching_speedup = median(prefillBatched) / median(prefillSequential);

  // End to end through generate(): chat prompts from the corpus, sampling at temperature 1, 64-token cap.
  const e2e: number[] = [];
  const prompts = sampleExamples(BASE_TASKS, reps * 4, 42, 'heldout');
  for (let r = 0; r < reps; r++) {
    let tokens = 0;
    const t = performance.now();
    for (const ex of prompts.slice(r * 4, r * 4 + 4)) {
      const out = generateSync(model, { messages: ex.messages, temperature: 1, seed: r, max_tokens: 64, logprobs: true });
      tokens += out.usage.completion_tokens;
    }
    e2e.push(tokens / ((performance.now() - t) / 1000));
  }
  results.generate_api_tokens_per_s = median(e2e);
}

// 3. Training throughput: LoRA SFT (what trainSft does) and full-parameter training (what built the base model).
{
  const warmupSteps = 10;
  const examples = sampleExamples(BASE_TASKS, 8 * (warmupSteps + 4 * reps), 7, 'train').map((ex) => ({ messages: withAnswer(ex) }));
  const sft: number[] = [];
  await trainSft({ base: model, adapter: createAdapter(model), examples, config: { batch_size: 8, steps: warmupSteps + 2 * reps } }, (m) => {
    if (m.step > warmupSteps) sft.push(m.tokens_per_second);
  });
  results.sft_lora_train_tokens_per_s = median(sft);
  const scratch = initModel(c, 5);
  const full: number[] = [];
  trainBaseModel(scratch, {
    steps: warmupSteps + 2 * reps, batchSize: 8, learningRate: 1e-3, warmupSteps: 1, weightDecay: 0,
    batchFor: (s) => examples.slice(s * 8, s * 8 + 8).map((e) => e.messages),
    onStep: (() => {
      let last = performance.now();
      return (m) => {
        const now = performance.now();
        if (m.step > warmupSteps) full.push(m.tokens / ((now - last) / 1000));
        last = now;
      };
    })(),
  });
  results.full_train_tokens_per_s = median(full);
}

results.load_average_1m_at_end = loadavg()[0];
results.peak_rss_mib = Math.round(process.resourceUsage().maxRSS / 1024);
for (const [k, v] of Object.entries(results)) console.log(`${k.padEnd(40)} ${typeof v === 'number' ? (Number.isInteger(v) ? v : v.toFixed(2)) : v}`);
