/**
 * Full-parameter training of a model from scratch on chat examples (used to make
 * the shipped base model). Loss: mean cross-entropy over assistant tokens.
 */
import { AdamW, clipGradients, cosineSchedule } from './adamw.js';
import { type ChatMessage, encodeChatForTraining } from './chat-template.js';
import { forgetTransposedWeights } from './kernels.js';
import { type LlamaModel, PROJECTIONS } from './model.js';
import { logprobGradientToLogits, scoreSequence, targetRows } from './sequence-logprobs.js';
import { backward, zeroModelGradients } from './transformer.js';
import type { ModelWeights } from './model.js';

export interface BaseTrainingOptions {
  /** Length of the learning-rate schedule. */
  steps: number;
  /** Stop after this many steps (default: steps). */
  stopAt?: number;
  batchSize: number;
  learningRate: number;
  warmupSteps: number;
  weightDecay: number;
  /** Conversations for step s are batchFor(s); keeps the corpus lazy and deterministic. */
  batchFor: (step: number) => ChatMessage[][];
  onStep?: (m: { step: number; loss: number; gradNorm: number; learningRate: number; tokens: number }) => void;
}

function flatten(w: ModelWeights): { arrays: Float32Array[]; decay: boolean[] } {
  const arrays: Float32Array[] = [w.embed];
  const decay: boolean[] = [true];
  for (const l of w.layers) {
    arrays.push(l.inputNorm, l.postAttentionNorm);
    decay.push(false, false);
    for (const p of PROJECTIONS) { arrays.push(l.proj[p]); decay.push(true); }
  }
  arrays.push(w.finalNorm);
  decay.push(false);
  if (w.lmHead !== w.embed) { arrays.push(w.lmHead); decay.push(true); }
  return { arrays, decay };
}

export function trainBaseModel(model: LlamaModel, options: BaseTrainingOptions): void {
  const params = flatten(model.weights);
  const optimizer = new AdamW(params.arrays, { weightDecay: options.weightDecay, beta2: 0.98 });
  const V = model.config.vocabSize;
  for (let step = 0; step < (options.stopAt ?? options.steps); step++) {
    const gradsWeights = zeroModelGradients(model);
    const grads = flatten(gradsWeights).arrays;
    const batch = options.batchFor(step).map((messages) => encodeChatForTraining(messages));
    const totalTargets = batch.reduce((n, b) => n + targetRows(b.trainMask).length, 0);
    let loss = 0;
    let tokens = 0;
    for (const { tokens: seq, trainMask } of batch) {
      const rows = targetRows(trainMask);
      if (rows.length === 0) continue;
      const scored = scoreSequence(model, null, seq, rows, true);
      const dLogp = new Float64Array(rows.length).fill(-1 / totalTargets);
      for (const lp of scored.logprobs) loss -= lp / totalTargets;
      backward(model, null, scored.trace!, logprobGradientToLogits(scored, seq, rows, dLogp, V), { base: gradsWeights, lora: null });
      tokens += seq.length;
    }
    const gradNorm = clipGradients(grads, 1.0);
    const lr = cosineSchedule(step, options.steps, options.learningRate, options.warmupSteps);
    optimizer.step(grads, lr, params.decay);
    forgetTransposedWeights(); // weights changed in place
    options.onStep?.({ step: step + 1, loss, gradNorm, learningRate: lr, tokens });
  }
}
