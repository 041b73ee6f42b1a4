/** The Llama weights in memory, and loading/saving them in the Hugging Face layout. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ModelConfigMismatchError } from './errors.js';
import { type LlamaConfig, llamaConfigToJson, parseLlamaConfig } from './model-config.js';
import { SeededRandom } from './rng.js';
import { type TensorMap, parseSafetensors, serializeSafetensors } from './safetensors.js';
import { BYTE_TOKENIZER_VOCAB_SIZE } from './tokenizer.js';

export const PROJECTIONS = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type ProjectionName = (typeof PROJECTIONS)[number];

export interface LayerWeights {
  inputNorm: Float32Array;
  postAttentionNorm: Float32Array;
  proj: Record<ProjectionName, Float32Array>;
}

export interface ModelWeights {
  embed: Float32Array; // [vocab × hidden]
  layers: LayerWeights[];
  finalNorm: Float32Array;
  lmHead: Float32Array; // [vocab × hidden]; the same array as embed when embeddings are tied
}

export interface LlamaModel {
  name: string;
  config: LlamaConfig;
  weights: ModelWeights;
  /** sha256 of config + weights; adapters record it so they are never applied to another base. */
  fingerprint: string;
}

export type ModelSource = string | { configJson: string | Record<string, unknown>; safetensorsBytes: Uint8Array; name?: string };

/** [out, in] of each projection for a config. */
export function projectionShape(c: LlamaConfig, p: ProjectionName): [number, number] {
  const q = c.numHeads * c.headDim;
  const kv = c.numKvHeads * c.headDim;
  switch (p) {
    case 'q_proj': return [q, c.hiddenSize];
    case 'k_proj':
    case 'v_proj': return [kv, c.hiddenSize];
    case 'o_proj': return [c.hiddenSize, q];
    case 'gate_proj':
    case 'up_proj': return [c.intermediateSize, c.hiddenSize];
    case 'down_proj': return [c.hiddenSize, c.intermediateSize];
  }
}

function projectionModule(p: ProjectionName): string {
  return p.endsWith('_proj') && ['q_proj', 'k_proj', 'v_proj', 'o_proj'].includes(p) ? 'self_attn' : 'mlp';
}

export function projectionTensorName(layer: number, p: ProjectionName): string {
  return `model.layers.${layer}.${projectionModule(p)}.${p}`;
}

export function loadModel(source: ModelSource): LlamaModel {
  if (typeof source === 'string') {
    const dir = resolve(source);
    return modelFromParts(readFileSync(join(dir, 'config.json'), 'utf8'), readFileSync(join(dir, 'model.safetensors')), basename(dir));
  }
  return modelFromParts(source.configJson, source.safetensorsBytes, source.name ?? 'model');
}

function modelFromParts(configJson: string | Record<string, unknown>, bytes: Uint8Array, name: string): LlamaModel {
  const config = parseLlamaConfig(configJson);
  if (config.vocabSize < BYTE_TOKENIZER_VOCAB_SIZE) {
    throw new ModelConfigMismatchError(`vocab_size ${config.vocabSize} is smaller than the byte tokenizer's ${BYTE_TOKENIZER_VOCAB_SIZE} tokens`);
  }
  const { tensors } = parseSafetensors(bytes);
  const take = (tensorName: string, shape: number[]): Float32Array => {
    const t = tensors.get(tensorName);
    if (!t) throw new ModelConfigMismatchError(`weights are missing tensor ${tensorName} required by config.json`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      throw new ModelConfigMismatchError(
        `tensor ${tensorName} has shape [${t.shape}] but config.json implies [${shape}]`,
      );
    }
    return t.data;
  };
  const h = config.hiddenSize;
  const embed = take('model.embed_tokens.weight', [config.vocabSize, h]);
  const layers: LayerWeights[] = [];
  for (let l = 0; l < config.numLayers; l++) {
    const proj = {} as Record<ProjectionName, Float32Array>;
    for (const p of PROJECTIONS) proj[p] = take(`${projectionTensorName(l, p)}.weight`, projectionShape(config, p));
    layers.push({
      inputNorm: take(`model.layers.${l}.input_layernorm.weight`, [h]),
      postAttentionNorm: take(`model.layers.${l}.post_attention_layernorm.weight`, [h]),
      proj,
    });
  }
  if (tensors.has(`model.layers.${config.numLayers}.input_layernorm.weight`)) {
    throw new ModelConfigMismatchError(`weights contain more layers than num_hidden_layers (${config.numLayers}) in config.json`);
  }
  const lmHead = tensors.has('lm_head.weight') || !config.tieWordEmbeddings ? take('lm_head.weight', [config.vocabSize, h]) : embed;
  const weights: ModelWeights = { embed, layers, finalNorm: take('model.norm.weight', [h]), lmHead };
  return { name, config, weights, fingerprint: fingerprintWeights(config, weights) };
}

export function modelTensors(model: LlamaModel): TensorMap {
  const { config: c, weights: w } = model;
  const map: TensorMap = new Map();
  map.set('model.embed_tokens.weight', { shape: [c.vocabSize, c.hiddenSize], data: w.embed });
  w.layers.forEach((layer, l) => {
    for (const p of PROJECTIONS) map.set(`${projectionTensorName(l, p)}.weight`, { shape: projectionShape(c, p), data: layer.proj[p] });
    map.set(`model.layers.${l}.input_layernorm.weight`, { shape: [c.hiddenSize], data: layer.inputNorm });
    map.set(`model.layers.${l}.post_attention_layernorm.weight`, { shape: [c.hiddenSize], data: layer.postAttentionNorm });
  });
  map.set('model.norm.weight', { shape: [c.hiddenSize], data: w.finalNorm });
  map.set('lm_head.weight', { shape: [c.vocabSize, c.hiddenSize], data: w.lmHead });
  return map;
}

/** config.json and model.safetensors bytes for a model (used by the base-model script and by workers). */
export function saveModel(model: LlamaModel): { 'config.json': Buffer; 'model.safetensors': Buffer } {
  return {
    'config.json': Buffer.from(JSON.stringify(llamaConfigToJson(model.config), null, 2) + '\n'),
    'model.safetensors': serializeSafetensors(modelTensors(model), { format: 'pt' }),
  };
}

export function fingerprintWeights(config: LlamaConfig, weights: ModelWeights): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(llamaConfigToJson(config)));
  const add = (a: Float32Array) => hash.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  add(weights.embed);
  for (const layer of weights.layers) {
    add(layer.inputNorm);
    add(layer.postAttentionNorm);
    for (const p of PROJECTIONS) add(layer.proj[p]);
  }
  add(weights.finalNorm);
  add(weights.lmHead);
  return hash.digest('hex');
}

/** A freshly initialised model (normal(0, 0.02) weights, unit norms), for training from scratch and for tests. */
export function initModel(config: LlamaConfig, seed: number, name = 'model'): LlamaModel {
  const rng = new SeededRandom(seed);
  const randn = (n: number, std: number) => {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = rng.normal() * std;
    return a;
  };
  const ones = (n: number) => new Float32Array(n).fill(1);
  const std = 0.02;
  // Output projections get a depth-scaled init so the residual stream does not grow with layers.
  const residualStd = std / Math.sqrt(2 * config.numLayers);
  const layers: LayerWeights[] = [];
  for (let l = 0; l < config.numLayers; l++) {
    const proj = {} as Record<ProjectionName, Float32Array>;
    for (const p of PROJECTIONS) {
      const [o, i] = projectionShape(config, p);
      proj[p] = randn(o * i, p === 'o_proj' || p === 'down_proj' ? residualStd : std);
    }
    layers.push({ inputNorm: ones(config.hiddenSize), postAttentionNorm: ones(config.hiddenSize), proj });
  }
  const embed = randn(config.vocabSize * config.hiddenSize, std);
  const weights: ModelWeights = {
    embed,
    layers,
    finalNorm: ones(config.hiddenSize),
    lmHead: config.tieWordEmbeddings ? embed : randn(config.vocabSize * config.hiddenSize, std),
  };
  return { name, config, weights, fingerprint: fingerprintWeights(config, weights) };
}

export function parameterCount(model: LlamaModel): number {
  return [...modelTensors(model).values()].reduce((n, t) => n + t.data.length, 0) -
    (model.weights.lmHead === model.weights.embed ? model.weights.embed.length : 0);
}
