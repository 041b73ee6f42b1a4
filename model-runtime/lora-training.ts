/** Shared plumbing for LoRA training (SFT and RL): parameter lists, optimizer carry-over, yielding, cancellation. */
import { AdamW, type AdamWState } from './adamw.js';
import { AdapterBaseMismatchError, OperationCancelledError } from './errors.js';
import { type LoraAdapter, type LoraPair, cloneAdapter, createAdapter } from './lora-adapter.js';
import type { LlamaModel, ProjectionName } from './model.js';
import type { LoraGradients } from './transformer.js';

export interface LoraInit {
  lora_rank?: number;
  lora_alpha?: number;
  seed?: number;
}

/** The adapter that training will update: a copy of the given one (never mutated), or a fresh one. */
export function startingAdapter(base: LlamaModel, adapter: LoraAdapter | null | undefined, init: LoraInit): LoraAdapter {
  if (!adapter) return createAdapter(base, { rank: init.lora_rank ?? 8, alpha: init.lora_alpha ?? 16, seed: init.seed ?? 0 });
  if (adapter.baseFingerprint !== base.fingerprint) {
    throw new AdapterBaseMismatchError(`adapter was made for base model "${adapter.baseModelName}", not for "${base.name}"`);
  }
  const copy = cloneAdapter(adapter);
  const state = optimizerStates.get(adapter);
  if (state) optimizerStates.set(copy, state);
  return copy;
}

export function loraParameters(adapter: LoraAdapter): Float32Array[] {
  const out: Float32Array[] = [];
  for (const layer of adapter.layers) {
    for (const pair of Object.values(layer) as LoraPair[]) out.push(pair.a, pair.b);
  }
  return out;
}

export function loraGradientList(grads: LoraGradients): Float32Array[] {
  const out: Float32Array[] = [];
  for (const layer of grads) {
    for (const g of Object.values(layer) as { a: Float32Array; b: Float32Array }[]) out.push(g.a, g.b);
  }
  return out;
}

export function resetGradients(list: Float32Array[]): void {
  for (const g of list) g.fill(0);
}

// Adam moments travel with the adapter object a training call returns, so that
// consecutive RL steps on the same adapter (the ART loop) keep their momentum.
const optimizerStates = new WeakMap<LoraAdapter, AdamWState>();

export function optimizerFor(adapter: LoraAdapter, weightDecay: number): AdamW {
  return new AdamW(loraParameters(adapter), { weightDecay }, optimizerStates.get(adapter));
}

export function rememberOptimizer(adapter: LoraAdapter, optimizer: AdamW): void {
  optimizerStates.set(adapter, optimizer.state());
}

export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new OperationCancelledError(what);
}

/** Let the event loop run (timers, I/O, abort signals) between training steps. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export type { ProjectionName };
