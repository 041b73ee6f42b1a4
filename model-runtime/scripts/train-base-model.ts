/**
 * Reproduces models/trellis-tiny: generates the synthetic corpus and trains the
 * base model from scratch with a fixed seed, then writes config.json,
 * model.safetensors and training-log.json.
 *
 *   npm run -s build && node dist/model-runtime/scripts/train-base-model.js [--steps N] [--out DIR]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { trainBaseModel } from '../base-model-trainer.js';
import { parseLlamaConfig } from '../model-config.js';
import { initModel, parameterCount, saveModel } from '../model.js';
import { BASE_TASKS, sampleExamples, withAnswer } from '../synthetic-corpus.js';

export const TRELLIS_TINY_CONFIG = {
  model_type: 'llama',
  hidden_size: 128,
  intermediate_size: 352,
  num_hidden_layers: 4,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  vocab_size: 262,
  max_position_embeddings: 512,
  rope_theta: 10000,
  rms_norm_eps: 1e-5,
  tie_word_embeddings: false,
  bos_token_id: 256,
  eos_token_id: 257,
};

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '3000' },
    // The learning-rate schedule spans --steps; --stop-at ends the run early at that step (the shipped model: 2000 of 3000).
    'stop-at': { type: 'string' },
    'batch-size': { type: 'string', default: '16' },
    lr: { type: 'string', default: '0.003' },
    seed: { type: 'string', default: '1234' },
    out: { type: 'string', default: 'models/trellis-tiny' },
    'hidden-size': { type: 'string' },
    layers: { type: 'string' },
  },
});

const steps = Number(values.steps);
const stopAt = values['stop-at'] ? Number(values['stop-at']) : steps;
const batchSize = Number(values['batch-size']);
const seed = Number(values.seed);
const configJson = { ...TRELLIS_TINY_CONFIG };
if (values['hidden-size']) configJson.hidden_size = Number(values['hidden-size']);
if (values.layers) configJson.num_hidden_layers = Number(values.layers);
const model = initModel(parseLlamaConfig(configJson), seed, 'trellis-tiny');
console.log(`parameters: ${parameterCount(model)}; steps ${steps} × batch ${batchSize}`);

const outDir = values.out!;
function writeModel(): void {
  mkdirSync(outDir, { recursive: true });
  const files = saveModel(model);
  writeFileSync(join(outDir, 'config.json'), files['config.json']);
  writeFileSync(join(outDir, 'model.safetensors'), files['model.safetensors']);
}

const started = Date.now();
const log: Array<Record<string, number>> = [];
let windowTokens = 0;
let windowStart = Date.now();
trainBaseModel(model, {
  steps,
  stopAt,
  batchSize,
  learningRate: Number(values.lr),
  warmupSteps: Math.min(200, Math.floor(steps / 10)),
  weightDecay: 0.01,
  // Each step draws a fresh batch from the training split; seed derived from step keeps it reproducible.
  batchFor: (step) => sampleExamples(BASE_TASKS, batchSize, seed * 1_000_003 + step, 'train').map(withAnswer),
  onStep: (m) => {
    windowTokens += m.tokens;
    if (m.step % 50 === 0 || m.step === stopAt) {
      const secs = (Date.now() - windowStart) / 1000;
      const entry = { step: m.step, loss: Number(m.loss.toFixed(4)), grad_norm: Number(m.gradNorm.toFixed(3)), learning_rate: m.learningRate, tokens_per_second: Math.round(windowTokens / secs), elapsed_seconds: Math.round((Date.now() - started) / 1000) };
      log.push(entry);
      console.log(JSON.stringify(entry));
      windowTokens = 0;
      windowStart = Date.now();
    }
    // Periodic checkpoints, so a long run can be inspected (and is not lost) before it ends.
    if (m.step % 500 === 0 && m.step < stopAt) writeModel();
  },
});

writeModel();
writeFileSync(
  join(outDir, 'training-log.json'),
  JSON.stringify({ seed, schedule_steps: steps, steps: stopAt, batch_size: batchSize, learning_rate: Number(values.lr), parameters: parameterCount(model), training_seconds: Math.round((Date.now() - started) / 1000), log }, null, 1) + '\n',
);
console.log(`wrote ${outDir} in ${Math.round((Date.now() - started) / 1000)} s`);
