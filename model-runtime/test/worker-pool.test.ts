import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ContextLengthExceededError, GenerationWorkerPool, OperationCancelledError, createAdapter, generate, loadAdapter, runTrainingInWorker,
  saveAdapter, saveModel,
} from '../index.js';
import { tinyRandomModel } from './support/tiny-model.js';

const model = tinyRandomModel(9);
const files = saveModel(model);
const dir = mkdtempSync(join(tmpdir(), 'model-runtime-'));
writeFileSync(join(dir, 'config.json'), files['config.json']);
writeFileSync(join(dir, 'model.safetensors'), files['model.safetensors']);
const messages = [{ role: 'user' as const, content: 'stream please' }];

describe('generation worker pool', () => {
  const pool = new GenerationWorkerPool({ model: dir, size: 2 });
  afterAll(() => pool.close());

  it('streams tokens from a worker and matches in-thread generation for the same seed', async () => {
    await pool.ready();
    const adapter = createAdapter(model, { seed: 2 });
    adapter.layers[0].v_proj!.b.fill(0.05);
    const adapterFiles = saveAdapter(adapter);
    const request = { messages, seed: 5, max_tokens: 24, logprobs: true };
    let streamed = '';
    let events = 0;
    const remote = await pool.generate(
      { ...request, adapter: { id: 'a1', adapterConfigJson: adapterFiles['adapter_config.json'].toString(), safetensorsBytes: adapterFiles['adapter_model.safetensors'] } },
      (e) => { streamed += e.text; events++; },
    );
    const local = await generate(model, { ...request, adapter: loadAdapter(model, { adapterConfigJson: adapterFiles['adapter_config.json'].toString(), safetensorsBytes: adapterFiles['adapter_model.safetensors'] }) });
    expect(remote.choices[0].tokens).toEqual(local.choices[0].tokens);
    expect(remote.choices[0].logprobs).toEqual(local.choices[0].logprobs);
    expect(streamed).toBe(remote.choices[0].text);
    expect(events).toBe(remote.choices[0].tokens.length);
  });

  it('keeps the event loop free while workers generate', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await Promise.all([pool.generate({ messages, seed: 1, max_tokens: 90 }), pool.generate({ messages, seed: 2, max_tokens: 90 })]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it('an abort rejects at once, even when the worker has already finished the generation', async () => {
    // One token: the worker posts it and its result back to back, so the cancel always arrives too late.
    for (let attempt = 0; attempt < 5; attempt++) {
      const controller = new AbortController();
      const pending = pool.generate({ messages, seed: attempt, max_tokens: 1, signal: controller.signal }, () => controller.abort());
      await expect(pending).rejects.toThrow(OperationCancelledError);
    }
  });

  it('cancels a running generation via AbortSignal and reports named errors', async () => {
    const controller = new AbortController();
    const pending = pool.generate({ messages, seed: 3, max_tokens: 90, signal: controller.signal }, () => controller.abort());
    await expect(pending).rejects.toThrow(OperationCancelledError);
    await expect(pool.generate({ messages: [{ role: 'user', content: 'y'.repeat(300) }] })).rejects.toThrow(ContextLengthExceededError);
    // The pool still works afterwards.
    const ok = await pool.generate({ messages, seed: 4, max_tokens: 4 });
    expect(ok.choices[0].tokens.length).toBeGreaterThan(0);
  });
});

describe('training in a worker thread', () => {
  it('runs SFT off the main thread, streams step metrics and returns adapter files', async () => {
    const steps: number[] = [];
    const out = await runTrainingInWorker(
      dir,
      { kind: 'sft', examples: [{ messages: [...messages, { role: 'assistant', content: 'ok' }] }], config: { steps: 3, batch_size: 1 } },
      (m) => steps.push(m.step),
    );
    expect(steps).toEqual([1, 2, 3]);
    const adapter = loadAdapter(model, { adapterConfigJson: out['adapter_config.json'].toString(), safetensorsBytes: out['adapter_model.safetensors'] });
    expect(adapter.step).toBe(3);
  });

  it('can be cancelled', async () => {
    const controller = new AbortController();
    const pending = runTrainingInWorker(
      dir,
      { kind: 'sft', examples: [{ messages: [...messages, { role: 'assistant', content: 'ok' }] }], config: { steps: 10_000 } },
      () => controller.abort(),
      controller.signal,
    );
    await expect(pending).rejects.toThrow(OperationCancelledError);
  });
});
