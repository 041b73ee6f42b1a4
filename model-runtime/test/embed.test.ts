import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextLengthExceededError, GenerationWorkerPool, InvalidRequestError, SPECIAL_TOKENS, embed, encodeText, saveModel } from '../index.js';
import { tinyRandomModel } from './support/tiny-model.js';

const model = tinyRandomModel(4);
const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);

describe('embeddings', () => {
  it('gives one unit vector of the hidden size per input, the same for a text and its token ids', async () => {
    const result = await embed(model, { inputs: ['the cat sat', 'a different sentence', [SPECIAL_TOKENS.bos, ...encodeText('the cat sat')]] });
    expect(result.embeddings.map((vector) => vector.length)).toEqual([32, 32, 32]);
    for (const vector of result.embeddings) expect(norm(vector)).toBeCloseTo(1, 10);
    expect(result.embeddings[2]).toEqual(result.embeddings[0]);
    expect(dot(result.embeddings[0]!, result.embeddings[1]!)).toBeLessThan(1 - 1e-6);
    // <|bos|> and the bytes of each input.
    expect(result.usage).toEqual({ prompt_tokens: 12 + 21 + 12, total_tokens: 45 });
  });

  it('refuses token ids outside the vocabulary and inputs beyond the context window', async () => {
    await expect(embed(model, { inputs: [[1, 999]] })).rejects.toThrow(InvalidRequestError);
    await expect(embed(model, { inputs: [[]] })).rejects.toThrow(/no tokens/);
    await expect(embed(model, { inputs: ['x'.repeat(100)] })).rejects.toThrow(ContextLengthExceededError);
  });

  describe('in the worker pool', () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-runtime-embed-'));
    const files = saveModel(model);
    writeFileSync(join(dir, 'config.json'), files['config.json']);
    writeFileSync(join(dir, 'model.safetensors'), files['model.safetensors']);
    const pool = new GenerationWorkerPool({ model: dir, size: 1 });
    afterAll(() => pool.close());

    it('computes the same vectors as in-thread, and its request errors keep their class', async () => {
      const local = await embed(model, { inputs: ['hello', 'world'] });
      expect(await pool.embed({ inputs: ['hello', 'world'] })).toEqual(local);
      await expect(pool.embed({ inputs: ['x'.repeat(100)] })).rejects.toThrow(ContextLengthExceededError);
    });
  });
});
