/**
 * Supervised fine-tuning of a LoRA adapter: cross-entropy on assistant tokens
 * only, AdamW, mini-batches, linear warmup + cosine decay.
 */
import { clipGradients, cosineSchedule } from './adamw.js';
import { type ChatMessage, type ToolDefinition, encodeChatForTraining } from './chat-template.js';
import { InvalidRequestError } from './errors.js';
import type { LoraAdapter } from './lora-adapter.js';
import {
  type LoraInit, loraGradientList, optimizerFor, rememberOptimizer, resetGradients, startingAdapter, throwIfAborted, yieldToEventLoop,
} from './lora-training.js';
import type { LlamaModel } from './model.js';
import { SeededRandom } from './rng.js';
import { logprobGradientToLogits, scoreSequence, targetRows } from './sequence-logprobs.js';
import { backward, zeroLoraGradients } from './transformer.js';

export interface SftExample {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
}

export interface SftConfig extends LoraInit {
  /** Default 2. */
  batch_size?: number;
  /**
   * Default 1e-2 (suits the tiny base model's LoRA, see the demonstrations; GPU-scale models want ~1e-4): the peak of
   * a warmup + cosine schedule. A list is the schedule itself, one rate per batch (ART's train_sft_from_file sends
   * one); its length must be the number of batches trained.
   */
  learning_rate?: number | number[];
  /** Passes over the examples (default 1); ignored when `steps` is given. */
  epochs?: number;
  steps?: number;
  /** Fraction of steps spent warming up (default 0.1). */
  warmup_ratio?: number;
  max_grad_norm?: number;
  weight_decay?: number;
}

export interface SftRequest {
  base: LlamaModel;
  adapter?: LoraAdapter | null;
  examples: SftExample[];
  config?: SftConfig;
  signal?: AbortSignal;
}

export interface SftStepMetrics {
  step: number;
  total_steps: number;
  loss: number;
  grad_norm: number;
  learning_rate: number;
  num_trainable_tokens: number;
  tokens_per_second: number;
}

export async function trainSft(request: SftRequest, onStep?: (m: SftStepMetrics) => void): Promise<LoraAdapter> {
  const { base, examples, signal } = request;
  const config = request.config ?? {};
  const batchSize = config.batch_size ?? 2;
  if (!Array.isArray(examples) || examples.length === 0) throw new InvalidRequestError('SFT needs at least one example');
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new InvalidRequestError(`batch_size must be a positive integer, got ${batchSize}`);
  const encoded = examples.map((ex, i) => {
    let enc;
    try {
      enc = encodeChatForTraining(ex.messages, ex.tools);
    } catch (err) {
      throw new InvalidRequestError(`examples[${i}]: ${(err as Error).message}`);
    }
    const rows = targetRows(enc.trainMask);
    if (rows.length === 0) throw new InvalidRequestError(`examples[${i}] has no assistant message to train on`);
    if (enc.tokens.length > base.config.maxPositionEmbeddings) {
      throw new InvalidRequestError(`examples[${i}] has ${enc.tokens.length} tokens, more than the context length ${base.config.maxPositionEmbeddings}`);
    }
    return { tokens: enc.tokens, rows };
  });
  const stepsPerEpoch = Math.ceil(encoded.length / batchSize);
  const totalSteps = config.steps ?? stepsPerEpoch * (config.epochs ?? 1);
  const schedule = Array.isArray(config.learning_rate) ? config.learning_rate : null;
  if (schedule && schedule.length !== totalSteps) {
    throw new InvalidRequestError(`learning_rate lists ${schedule.length} rates, one per batch, but this job trains ${totalSteps} batches`);
  }
  if (schedule?.some((rate) => typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0)) {
    throw new InvalidRequestError('learning_rate must list finite numbers ≥ 0');
  }
  const peakLr = (schedule ? undefined : (config.learning_rate as number | undefined)) ?? 1e-2;
  const adapter = startingAdapter(base, request.adapter, config);
  const optimizer = optimizerFor(adapter, config.weight_decay ?? 0);
  const gradsByLayer = zeroLoraGradients(adapter);
  const grads = loraGradientList(gradsByLayer);
  const rng = new SeededRandom(config.seed ?? 0);
  let order: number[] = [];
  const V = base.config.vocabSize;

  for (let step = 0; step < totalSteps; step++) {
    throwIfAborted(signal, 'SFT training');
    const started = performance.now();
    if (order.length < batchSize) order = order.concat(rng.shuffle([...encoded.keys()]));
    const batch = order.splice(0, batchSize).map((i) => encoded[i]);
    const totalTargets = batch.reduce((n, b) => n + b.rows.length, 0);
    resetGradients(grads);
    let loss = 0;
    let tokens = 0;
    for (const { tokens: seq, rows } of batch) {
      const scored = scoreSequence(base, adapter, seq, rows, true);
      for (const lp of scored.logprobs) loss -= lp / totalTargets;
      const dLogp = new Float64Array(rows.length).fill(-1 / totalTargets);
      backward(base, adapter, scored.trace!, logprobGradientToLogits(scored, seq, rows, dLogp, V), { base: null, lora: gradsByLayer });
      tokens += seq.length;
    }
    const gradNorm = clipGradients(grads, config.max_grad_norm ?? 1.0);
    const lr = schedule ? schedule[step]! : cosineSchedule(step, totalSteps, peakLr, Math.floor(totalSteps * (config.warmup_ratio ?? 0.1)));
    optimizer.step(grads, lr);
    adapter.step++;
    const seconds = (performance.now() - started) / 1000;
    onStep?.({ step: step + 1, total_steps: totalSteps, loss, grad_norm: gradNorm, learning_rate: lr, num_trainable_tokens: totalTargets, tokens_per_second: tokens / Math.max(seconds, 1e-9) });
    await yieldToEventLoop();
  }
  rememberOptimizer(adapter, optimizer);
  return adapter;
}
