import { describe, expect, it } from 'vitest';
import { InvalidRequestError, createAdapter, saveAdapter, trainSft } from '../index.js';
import { tinyRandomModel } from './support/tiny-model.js';

describe('trainSft', () => {
  const model = tinyRandomModel(4);
  // At init the frozen lm_head (std 0.02) caps logits near zero, so no adapter could fit anything;
  // a trained model's output layer is far larger. Scale it like one.
  for (let i = 0; i < model.weights.lmHead.length; i++) model.weights.lmHead[i] *= 25;
  const examples = [
    { messages: [{ role: 'user' as const, content: 'ping' }, { role: 'assistant' as const, content: 'pong' }] },
    { messages: [{ role: 'user' as const, content: 'left' }, { role: 'assistant' as const, content: 'right' }] },
    { messages: [{ role: 'system' as const, content: 'tools' }, { role: 'user' as const, content: 'up' }, { role: 'assistant' as const, content: 'down' }], tools: [{ type: 'function', function: { name: 'noop' } }] },
  ];

  it('lowers the assistant-token loss, follows the schedule and leaves the input adapter untouched', async () => {
    const start = createAdapter(model, { seed: 1 });
    const before = saveAdapter(start)['adapter_model.safetensors'];
    const metrics: Array<{ loss: number; learning_rate: number; num_trainable_tokens: number }> = [];
    const trained = await trainSft({ base: model, adapter: start, examples, config: { batch_size: 3, steps: 40, learning_rate: 1e-2 } }, (m) => metrics.push(m));
    expect(metrics).toHaveLength(40);
    expect(metrics.at(-1)!.loss).toBeLessThan(metrics[0].loss * 0.5);
    expect(metrics[0].num_trainable_tokens).toBe('pong'.length + 'right'.length + 'down'.length + 3);
    // Warmup (4 steps) then cosine decay.
    expect(metrics[0].learning_rate).toBeLessThan(metrics[3].learning_rate);
    expect(metrics.at(-1)!.learning_rate).toBeLessThan(metrics[10].learning_rate);
    expect(saveAdapter(start)['adapter_model.safetensors'].equals(before)).toBe(true);
    expect(trained.step).toBe(40);
  });

  it('derives steps from epochs and batch size (default batch 2)', async () => {
    const steps: number[] = [];
    await trainSft({ base: model, examples, config: { epochs: 2 } }, (m) => steps.push(m.total_steps));
    expect(steps).toEqual([4, 4, 4, 4]);
  });

  it('rejects examples without an assistant turn, naming the example', async () => {
    await expect(trainSft({ base: model, examples: [examples[0], { messages: [{ role: 'user', content: 'no answer' }] }] })).rejects.toThrow(InvalidRequestError);
    await expect(trainSft({ base: model, examples: [examples[0], { messages: [{ role: 'user', content: 'no answer' }] }] })).rejects.toThrow(/examples\[1\]/);
  });
});
