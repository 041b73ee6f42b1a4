/**
 * The demonstrations on the shipped base model (models/trellis-tiny):
 * SFT teaches a new task, RL raises a programmatic reward on held-out prompts,
 * and a saved adapter reproduces its outputs after loading. Seeded and deterministic.
 *
 * SFT task: the letter count spelled as a word ('How many letters are in "kamo"?
 * Answer in words.' → "four"), absent from the base corpus; the base model answers
 * in digits, so its exact-match score starts at zero.
 * RL task: the same count-in-words task, starting from a brief SFT warm start (40 steps)
 * that has learned the answer format but is right only about half the time at
 * temperature 1. RL with reward 1 for the right word, on training words only, raises the
 * temperature-1 mean reward on held-out words. (Straight on the base model, on tasks it
 * half knows such as capital cities, a few RL steps moved the held-out reward only
 * 0.25 → 0.31: RL there mostly sharpens phrasings it trained on.)
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_DIR, type LoraAdapter, type TrajectoryGroup, choiceFromGeneration, generateSync, loadAdapter, loadModel, saveAdapter,
  trainRl, trainSft,
} from '../index.js';
import { COUNT_IN_WORDS_TASK, type TaskExample, sampleExamples, withAnswer } from '../synthetic-corpus.js';
import { exactMatchAccuracy } from '../task-evaluation.js';

const base = loadModel(DEFAULT_MODEL_DIR);
const SFT_STEPS = 60;
const SFT_LR = 1e-2;
const RL_WARM_START_STEPS = 40;
const RL_WARM_START_LR = 2e-2;
const RL_STEPS = 12;
const RL_LR = 5e-3;
// SFT is ~13 s of CPU with the SIMD kernels (60 × 8 sequences of ~60 tokens at ~3 000 trained tokens/s; 140 steps
// reached 0.8 but cost 31 s, and the platform-level loop tests already show the same learning through the API); the
// bound leaves room for a 2-core machine shared with other work (load average 12: 140 steps took ~100 s).
const DEMO_TIMEOUT_MS = 150_000;
const countInWordsTraining = () => sampleExamples([COUNT_IN_WORDS_TASK], 200, 101, 'train').map((ex) => ({ messages: withAnswer(ex) }));

let sftAdapter: Promise<{ adapter: LoraAdapter; losses: number[] }> | undefined;
/** One SFT run shared by the two SFT tests (it is the expensive part). */
function countInWordsAdapter() {
  sftAdapter ??= (async () => {
    const losses: number[] = [];
    const adapter = await trainSft({ base, examples: countInWordsTraining(), config: { batch_size: 8, steps: SFT_STEPS, learning_rate: SFT_LR, seed: 1 } }, (m) => losses.push(m.loss));
    return { adapter, losses };
  })();
  return sftAdapter;
}

const reward = (ex: TaskExample, text: string) => (text.trim() === ex.answer ? 1 : 0);

/** Mean reward of temperature-1 samples (seeded per prompt, so before/after see the same random stream). */
function meanReward(adapter: LoraAdapter | null, prompts: TaskExample[], samples: number): number {
  let total = 0;
  prompts.forEach((ex, i) => {
    const out = generateSync(base, { messages: ex.messages, adapter, temperature: 1, n: samples, seed: 5000 + i, max_tokens: 32 });
    for (const c of out.choices) total += reward(ex, c.text);
  });
  return total / (prompts.length * samples);
}

describe('SFT on the shipped base model', () => {
  const heldOut = sampleExamples([COUNT_IN_WORDS_TASK], 25, 202, 'heldout');

  it('teaches a task the base model cannot do (held-out exact match from near zero to ≥ 50%)', async () => {
    const before = exactMatchAccuracy(base, null, heldOut)[0].accuracy;
    const { adapter, losses } = await countInWordsAdapter();
    const after = exactMatchAccuracy(base, adapter, heldOut)[0].accuracy;
    console.log(`SFT count-in-words: held-out exact match ${before} → ${after}; loss ${losses[0].toFixed(3)} → ${losses.at(-1)!.toFixed(3)}`);
    expect(before).toBeLessThanOrEqual(0.1);
    // Measured on the shipped model: 0 → 0.56 after 60 steps (seeded: the same on every run).
    expect(after).toBeGreaterThanOrEqual(0.5);
  }, DEMO_TIMEOUT_MS);

  it('reproduces the same outputs from a saved and reloaded adapter (same seed)', async () => {
    const { adapter } = await countInWordsAdapter();
    const files = saveAdapter(adapter);
    const reloaded = loadAdapter(base, { adapterConfigJson: files['adapter_config.json'].toString(), safetensorsBytes: files['adapter_model.safetensors'] });
    for (const ex of heldOut.slice(0, 5)) {
      const request = { messages: ex.messages, temperature: 0.9, seed: 77, max_tokens: 12, logprobs: true, n: 2 };
      const a = generateSync(base, { ...request, adapter });
      const b = generateSync(base, { ...request, adapter: reloaded });
      expect(b.choices.map((c) => c.text)).toEqual(a.choices.map((c) => c.text));
      expect(b.choices[0].logprobs).toEqual(a.choices[0].logprobs);
    }
  }, DEMO_TIMEOUT_MS);
});

describe('RL on the shipped base model', () => {
  it('raises the mean reward on held-out prompts over a few steps', async () => {
    const heldOut = sampleExamples([COUNT_IN_WORDS_TASK], 32, 303, 'heldout');
    const warmStart = await trainSft({ base, examples: countInWordsTraining(), config: { batch_size: 8, steps: RL_WARM_START_STEPS, learning_rate: RL_WARM_START_LR, seed: 1 } });
    const before = meanReward(warmStart, heldOut, 4);
    let adapter: LoraAdapter = warmStart;
    const batchRewards: number[] = [];
    for (let step = 0; step < RL_STEPS; step++) {
      const prompts = sampleExamples([COUNT_IN_WORDS_TASK], 8, 400 + step, 'train');
      const groups: TrajectoryGroup[] = prompts.map((ex, i) => {
        const out = generateSync(base, { messages: ex.messages, adapter, temperature: 1, n: 8, seed: step * 100 + i, max_tokens: 32, logprobs: true });
        return { trajectories: out.choices.map((c) => ({ messages_and_choices: [...ex.messages, choiceFromGeneration(c)], reward: reward(ex, c.text) })) };
      });
      adapter = await trainRl({ base, adapter, trajectoryGroups: groups, config: { learning_rate: RL_LR } }, (m) => batchRewards.push(m.reward));
    }
    const after = meanReward(adapter, heldOut, 4);
    console.log(`RL count-in-words: held-out mean reward ${before.toFixed(3)} → ${after.toFixed(3)}; batch rewards ${batchRewards.map((r) => r.toFixed(2)).join(' ')}`);
    // Measured on the shipped model: 0.523 → 0.664 (+18 of 128 held-out samples).
    expect(before).toBeLessThan(0.6);
    expect(after - before).toBeGreaterThanOrEqual(0.1);
  }, DEMO_TIMEOUT_MS);
});
