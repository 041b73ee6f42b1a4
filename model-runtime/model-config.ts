/** Hugging Face Llama config.json: parsing and validation. */
import { ModelConfigMismatchError } from './errors.js';

export interface LlamaConfig {
  modelType: 'llama';
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  vocabSize: number;
  maxPositionEmbeddings: number;
  ropeTheta: number;
  rmsNormEps: number;
  tieWordEmbeddings: boolean;
  bosTokenId: number;
  eosTokenId: number;
}

export function parseLlamaConfig(json: string | Record<string, unknown>): LlamaConfig {
  let raw: Record<string, unknown>;
  try {
    raw = typeof json === 'string' ? JSON.parse(json) : json;
  } catch (err) {
    throw new ModelConfigMismatchError(`config.json is not valid JSON: ${(err as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object') throw new ModelConfigMismatchError('config.json is not a JSON object');
  if (raw.model_type !== 'llama') {
    throw new ModelConfigMismatchError(`config.json model_type is ${JSON.stringify(raw.model_type)}, only "llama" is supported`);
  }
  const int = (key: string, fallback?: number): number => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new ModelConfigMismatchError(`config.json ${key} must be a positive integer, got ${JSON.stringify(raw[key])}`);
    }
    return value;
  };
  const num = (key: string, fallback: number): number => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'number' || !(value > 0)) throw new ModelConfigMismatchError(`config.json ${key} must be a positive number`);
    return value;
  };
  const hiddenSize = int('hidden_size');
  const numHeads = int('num_attention_heads');
  const numKvHeads = int('num_key_value_heads', numHeads);
  const headDim = int('head_dim', Math.floor(hiddenSize / numHeads));
  if (numHeads % numKvHeads !== 0) {
    throw new ModelConfigMismatchError(`num_attention_heads (${numHeads}) must be a multiple of num_key_value_heads (${numKvHeads})`);
  }
  if (headDim % 2 !== 0) throw new ModelConfigMismatchError(`head_dim (${headDim}) must be even for rotary embeddings`);
  const eos = Array.isArray(raw.eos_token_id) ? raw.eos_token_id[0] : raw.eos_token_id;
  return {
    modelType: 'llama',
    hiddenSize,
    intermediateSize: int('intermediate_size'),
    numLayers: int('num_hidden_layers'),
    numHeads,
    numKvHeads,
    headDim,
    vocabSize: int('vocab_size'),
    maxPositionEmbeddings: int('max_position_embeddings', 2048),
    ropeTheta: num('rope_theta', 10000),
    rmsNormEps: num('rms_norm_eps', 1e-6),
    tieWordEmbeddings: raw.tie_word_embeddings === true,
    bosTokenId: typeof raw.bos_token_id === 'number' ? raw.bos_token_id : 256,
    eosTokenId: typeof eos === 'number' ? eos : 257,
  };
}

export function llamaConfigToJson(c: LlamaConfig): Record<string, unknown> {
  return {
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    vocab_size: c.vocabSize,
    max_position_embeddings: c.maxPositionEmbeddings,
    rope_theta: c.ropeTheta,
    rms_norm_eps: c.rmsNormEps,
    tie_word_embeddings: c.tieWordEmbeddings,
    hidden_act: 'silu',
    bos_token_id: c.bosTokenId,
    eos_token_id: c.eosTokenId,
    torch_dtype: 'float32',
  };
}
