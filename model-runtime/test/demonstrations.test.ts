/**
 * The demonstrations on the shipped base model (models/trellis-tiny):
 * SFT teaches a new task, RL raises a programmatic reward on held-out prompts,
 * and a saved adapter reproduces its outputs after loading. Seeded and deterministic.
 *
 * SFT task: the letter count spelled as a word ('How many letters are in "kamo"?
 * Answer in words.' → "four"), absent from the base corpus; the base model answers
 * in digits, so its exact-match score starts at zero.
 * RL task: capital-city questions with a held-out set of phrasings, reward 1 for the
 * right city. The base model's greedy answer is right about half the time but its
 * temperature-1 samples much less often; RL moves the sampled policy towards the
 * right answers, and that carries over to phrasings it never trained on.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODEL_DIR, type LoraAdapter, type TrajectoryGroup, choiceFromGeneration, generateSync, loadAdapter, loadModel, saveAdapter,
  trainRl, trainSft,
} from '../index.js';
import { BASE_TASKS, COUNT_IN_WORDS_TASK, type TaskExample, sampleExamples, withAnswer } from '../synthetic-corpus.js';
import { exactMatchAccuracy } from '../task-evaluation.js';

const base = loadModel(DEFAULT_MODEL_DIR);
const SFT_STEPS = 140;
const SFT_LR = 1e-2;
const RL_STEPS = 12;
const RL_LR = 3e-3;
// ~35 s each on an idle 2-core machine; the margin covers a machine shared with other CPU-heavy work.
const DEMO_TIMEOUT_MS = 150_000;
const RL_TASK = BASE_TASKS.find((t) => t.name === 'capital-qa')!;

let sftAdapter: Promise<{ adapter: LoraAdapter; losses: number[] }> | undefined;
/** One SFT run shared by the two SFT tests (it is the expensive part). */
function countInWordsAdapter() {
  sftAdapter ??= (async () => {
    const train = sampleExamples([COUNT_IN_WORDS_TASK], 200, 101, 'train').map((ex) => ({ messages: withAnswer(ex) }));
    const losses: number[] = [];
    const adapter = await trainSft({ base, examples: train, config: { batch_size: 8, steps: SFT_STEPS, learning_rate: SFT_LR, seed: 1 } }, (m) => losses.push(m.loss));
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

  it('teaches a task the base model cannot do (held-out exact match from near zero to ≥ 80%)', async () => {
    const before = exactMatchAccuracy(base, null, heldOut)[0].accuracy;
    const { adapter, losses } = await countInWordsAdapter();
    const after = exactMatchAccuracy(base, adapter, heldOut)[0].accuracy;
    console.log(`SFT count-in-words: held-out exact match ${before} → ${after}; loss ${losses[0].toFixed(3)} → ${losses.at(-1)!.toFixed(3)}`);
    expect(before).toBeLessThanOrEqual(0.1);
    expect(after).toBeGreaterThanOrEqual(0.8);
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
    const heldOut = sampleExamples([RL_TASK], 32, 303, 'heldout');
    const before = meanReward(null, heldOut, 4);
    let adapter: LoraAdapter | null = null;
    const batchRewards: number[] = [];
    for (let step = 0; step < RL_STEPS; step++) {
      const prompts = sampleExamples([RL_TASK], 8, 400 + step, 'train');
      const groups: TrajectoryGroup[] = prompts.map((ex, i) => {
        const out = generateSync(base, { messages: ex.messages, adapter, temperature: 1, n: 8, seed: step * 100 + i, max_tokens: 32, logprobs: true });
        return { trajectories: out.choices.map((c) => ({ messages_and_choices: [...ex.messages, choiceFromGeneration(c)], reward: reward(ex, c.text) })) };
      });
      adapter = await trainRl({ base, adapter, trajectoryGroups: groups, config: { learning_rate: RL_LR } }, (m) => batchRewards.push(m.reward));
    }
    const after = meanReward(adapter, heldOut, 4);
    console.log(`RL capital-qa: held-out mean reward ${before.toFixed(3)} → ${after.toFixed(3)}; batch rewards ${batchRewards.map((r) => r.toFixed(2)).join(' ')}`);
    // Measured: 0.250 → 0.313 (+8 of 128 samples). A modest gain, and sensitive to the LoRA init seed
    // (0.344 with seed 2); the threshold still fails if RL does nothing or hurts.
    expect(after - before).toBeGreaterThanOrEqual(0.05);
  }, DEMO_TIMEOUT_MS);
});
