import { describe, expect, it } from 'vitest';
import {
  AdapterBaseMismatchError, ContextLengthExceededError, ModelConfigMismatchError, SafetensorsFormatError, countTokens,
  createAdapter, encodeChatPrompt, generate, loadAdapter, loadModel, saveAdapter, saveModel,
} from '../index.js';
import { encodeChatForTraining } from '../chat-template.js';
import { parseSafetensors, serializeSafetensors } from '../safetensors.js';
import { SPECIAL_TOKENS, decodeTokens, encodeText } from '../tokenizer.js';
import { tinyRandomModel } from './support/tiny-model.js';

describe('byte tokenizer and chat template', () => {
  it('round-trips any UTF-8 text', () => {
    const text = 'héllo, wörld — 你好 🙂';
    expect(decodeTokens(encodeText(text))).toBe(text);
  });

  it('renders system/user/assistant turns and ends the prompt with the assistant token', () => {
    const tokens = encodeChatPrompt([{ role: 'system', content: 'S' }, { role: 'user', content: 'hi' }]);
    expect(tokens).toEqual([SPECIAL_TOKENS.bos, SPECIAL_TOKENS.system, 83, SPECIAL_TOKENS.end, SPECIAL_TOKENS.user, 104, 105, SPECIAL_TOKENS.end, SPECIAL_TOKENS.assistant]);
    expect(countTokens([{ role: 'user', content: 'hi' }])).toBe(6);
  });

  it('formats developer messages (OpenAI\'s newer name for system) as system turns', () => {
    const asDeveloper = encodeChatPrompt([{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'hi' }]);
    expect(asDeveloper).toEqual(encodeChatPrompt([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]));
    expect(asDeveloper[1]).toBe(SPECIAL_TOKENS.system);
  });

  it('masks only assistant content and its end token for training', () => {
    const { tokens, trainMask } = encodeChatForTraining([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'bc' }]);
    const trained = tokens.filter((_, i) => trainMask[i]);
    expect(trained).toEqual([98, 99, SPECIAL_TOKENS.end]);
  });
});

describe('safetensors and model loading', () => {
  const model = tinyRandomModel();
  const files = saveModel(model);

  it('round-trips a model through config.json + model.safetensors bytes', () => {
    const loaded = loadModel({ configJson: files['config.json'].toString(), safetensorsBytes: files['model.safetensors'] });
    expect(loaded.fingerprint).toBe(model.fingerprint);
    expect(Array.from(loaded.weights.layers[1].proj.down_proj.slice(0, 5))).toEqual(Array.from(model.weights.layers[1].proj.down_proj.slice(0, 5)));
  });

  it('reads F16 and BF16 tensors', () => {
    const header = JSON.stringify({ a: { dtype: 'F16', shape: [2], data_offsets: [0, 4] }, b: { dtype: 'BF16', shape: [1], data_offsets: [4, 6] } });
    const buf = Buffer.alloc(8 + header.length + 6);
    buf.writeBigUInt64LE(BigInt(header.length));
    buf.write(header, 8);
    buf.writeUInt16LE(0x3c00, 8 + header.length); // 1.0
    buf.writeUInt16LE(0xc000, 10 + header.length); // -2.0
    buf.writeUInt16LE(0x3fc0, 12 + header.length); // 1.5 in bf16
    const { tensors } = parseSafetensors(buf);
    expect(Array.from(tensors.get('a')!.data)).toEqual([1, -2]);
    expect(Array.from(tensors.get('b')!.data)).toEqual([1.5]);
  });

  it('rejects a truncated file, naming the tensor that does not fit', () => {
    const truncated = files['model.safetensors'].subarray(0, files['model.safetensors'].length - 100);
    expect(() => loadModel({ configJson: files['config.json'].toString(), safetensorsBytes: truncated })).toThrow(SafetensorsFormatError);
    expect(() => loadModel({ configJson: files['config.json'].toString(), safetensorsBytes: truncated })).toThrow(/truncated/);
  });

  it('rejects corrupt headers and tiny files', () => {
    expect(() => parseSafetensors(Buffer.from([1, 2, 3]))).toThrow(SafetensorsFormatError);
    const corrupt = Buffer.from(files['model.safetensors']);
    corrupt.write('!!!!', 8);
    expect(() => parseSafetensors(corrupt)).toThrow(/not valid JSON/);
    const hugeHeader = Buffer.from(files['model.safetensors']);
    hugeHeader.writeBigUInt64LE(10n ** 12n, 0);
    expect(() => parseSafetensors(hugeHeader)).toThrow(/header length/);
  });

  it('rejects a config that does not match the weights, naming the tensor', () => {
    const config = JSON.parse(files['config.json'].toString());
    expect(() => loadModel({ configJson: { ...config, hidden_size: 48 }, safetensorsBytes: files['model.safetensors'] })).toThrow(ModelConfigMismatchError);
    expect(() => loadModel({ configJson: { ...config, hidden_size: 48 }, safetensorsBytes: files['model.safetensors'] })).toThrow(/model\.embed_tokens\.weight has shape \[262,32\]/);
    expect(() => loadModel({ configJson: { ...config, num_hidden_layers: 3 }, safetensorsBytes: files['model.safetensors'] })).toThrow(/missing tensor model\.layers\.2/);
    expect(() => loadModel({ configJson: { ...config, num_hidden_layers: 1 }, safetensorsBytes: files['model.safetensors'] })).toThrow(/more layers/);
    expect(() => loadModel({ configJson: { ...config, model_type: 'gpt2' }, safetensorsBytes: files['model.safetensors'] })).toThrow(/model_type/);
  });
});

describe('LoRA adapters in the PEFT layout', () => {
  const model = tinyRandomModel();

  it('saves PEFT tensor names and adapter_config.json, and loads them back', () => {
    const adapter = createAdapter(model, { rank: 4, alpha: 8, seed: 1 });
    adapter.layers[0].q_proj!.b.fill(0.01);
    const files = saveAdapter(adapter);
    const config = JSON.parse(files['adapter_config.json'].toString());
    expect(config).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8, task_type: 'CAUSAL_LM' });
    const names = [...parseSafetensors(files['adapter_model.safetensors']).tensors.keys()];
    expect(names).toContain('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight');
    expect(names).toContain('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight');
    const loaded = loadAdapter(model, { adapterConfigJson: files['adapter_config.json'].toString(), safetensorsBytes: files['adapter_model.safetensors'] });
    expect(Array.from(loaded.layers[0].q_proj!.b.slice(0, 3))).toEqual(Array.from(adapter.layers[0].q_proj!.b.slice(0, 3)));
  });

  it('refuses an adapter trained for another base model', () => {
    const files = saveAdapter(createAdapter(model));
    const other = tinyRandomModel(2);
    expect(() => loadAdapter(other, { adapterConfigJson: files['adapter_config.json'].toString(), safetensorsBytes: files['adapter_model.safetensors'] })).toThrow(AdapterBaseMismatchError);
    // Without the fingerprint (e.g. an adapter from elsewhere), shapes still have to fit.
    const wider = tinyRandomModel(1, { hidden_size: 48, intermediate_size: 64 });
    const config = JSON.parse(files['adapter_config.json'].toString());
    delete config.trellis_base_fingerprint;
    expect(() => loadAdapter(wider, { adapterConfigJson: config, safetensorsBytes: files['adapter_model.safetensors'] })).toThrow(/shape/);
  });

  it('reports a corrupt adapter file as a safetensors error', () => {
    const files = saveAdapter(createAdapter(model));
    expect(() => loadAdapter(model, { adapterConfigJson: files['adapter_config.json'].toString(), safetensorsBytes: files['adapter_model.safetensors'].subarray(0, 50) })).toThrow(SafetensorsFormatError);
  });
});

describe('generation', () => {
  const model = tinyRandomModel();
  const messages = [{ role: 'user' as const, content: 'hello' }];

  it('is deterministic for the same seed and differs across seeds', async () => {
    const a = await generate(model, { messages, seed: 7, max_tokens: 20 });
    const b = await generate(model, { messages, seed: 7, max_tokens: 20 });
    const c = await generate(model, { messages, seed: 8, max_tokens: 20 });
    expect(a.choices[0].tokens).toEqual(b.choices[0].tokens);
    expect(a.choices[0].tokens).not.toEqual(c.choices[0].tokens);
  });

  it('returns per-token logprobs with top_logprobs, n choices and usage', async () => {
    const r = await generate(model, { messages, seed: 1, max_tokens: 5, n: 3, top_logprobs: 2 });
    expect(r.choices).toHaveLength(3);
    expect(r.usage.prompt_tokens).toBe(countTokens(messages));
    expect(r.usage.completion_tokens).toBe(r.choices.reduce((n, c) => n + c.tokens.length, 0));
    for (const choice of r.choices) {
      expect(choice.logprobs).toHaveLength(choice.tokens.length);
      for (const entry of choice.logprobs!) {
        expect(entry.logprob).toBeLessThanOrEqual(0);
        expect(entry.top_logprobs).toHaveLength(2);
        expect(entry.top_logprobs[0].logprob).toBeGreaterThanOrEqual(entry.top_logprobs[1].logprob);
      }
    }
  });

  it('stops at a stop sequence, excluding it, and streams exactly the final text', async () => {
    const full = await generate(model, { messages, seed: 3, max_tokens: 40, temperature: 0.8 });
    const tokens = full.choices[0].tokens;
    // Pick two consecutive ASCII bytes from the unconstrained output as the stop sequence.
    const at = tokens.findIndex((t, i) => i >= 2 && t < 128 && tokens[i + 1] !== undefined && tokens[i + 1] < 128);
    expect(at).toBeGreaterThan(0);
    const stop = String.fromCharCode(tokens[at], tokens[at + 1]);
    const bytes = Buffer.from(tokens.filter((t) => t < 256));
    const expected = bytes.subarray(0, bytes.indexOf(Buffer.from(stop))).toString('utf8');
    let streamed = '';
    const r = await generate(model, { messages, seed: 3, max_tokens: 40, temperature: 0.8, stop: [stop] }, (e) => { streamed += e.text; });
    expect(r.choices[0].finishReason).toBe('stop');
    expect(r.choices[0].text).toBe(expected);
    expect(streamed).toBe(r.choices[0].text);
  });

  it('honours max_tokens and reports finish_reason length', async () => {
    const r = await generate(model, { messages, seed: 2, max_tokens: 3, temperature: 0 });
    if (r.choices[0].finishReason === 'length') expect(r.choices[0].tokens).toHaveLength(3);
    expect(r.choices[0].tokens.length).toBeLessThanOrEqual(3);
  });

  it('rejects a prompt longer than the context window', async () => {
    await expect(generate(model, { messages: [{ role: 'user', content: 'x'.repeat(200) }] })).rejects.toThrow(ContextLengthExceededError);
    await expect(generate(model, { messages: [{ role: 'user', content: 'x'.repeat(200) }] })).rejects.toThrow(/204 tokens .* context length is 96/);
  });

  it('can be cancelled with an AbortSignal', async () => {
    const controller = new AbortController();
    const pending = generate(model, { messages, seed: 1, max_tokens: 80, signal: controller.signal }, () => controller.abort());
    await expect(pending).rejects.toThrow(/cancelled/);
  });
});
