/**
 * LoRA adapters in the PEFT layout: adapter_config.json + adapter_model.safetensors
 * with tensors base_model.model.model.layers.N.<module>.<proj>.lora_{A,B}.weight.
 * y = x·Wᵀ + (alpha / r) · (x·Aᵀ)·Bᵀ with A [r×in], B [out×r]; B starts at zero so a
 * new adapter leaves the base model unchanged.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AdapterBaseMismatchError, AdapterFormatError, SafetensorsFormatError } from './errors.js';
import { type LlamaModel, PROJECTIONS, type ProjectionName, projectionShape, projectionTensorName } from './model.js';
import { SeededRandom } from './rng.js';
import { type TensorMap, parseSafetensors, serializeSafetensors } from './safetensors.js';

export interface LoraPair {
  a: Float32Array; // [r × in]
  b: Float32Array; // [out × r]
  inF: number;
  outF: number;
}

export interface LoraAdapter {
  rank: number;
  alpha: number;
  /** alpha / rank, the factor applied to the low-rank update. */
  scale: number;
  targetModules: ProjectionName[];
  layers: Array<Partial<Record<ProjectionName, LoraPair>>>;
  baseModelName: string;
  baseFingerprint: string;
  /** Training steps applied so far (RL and SFT steps both count). */
  step: number;
}

export interface AdapterOptions {
  rank?: number;
  alpha?: number;
  targetModules?: ProjectionName[];
  seed?: number;
}

export type AdapterSource = string | { adapterConfigJson: string | Record<string, unknown>; safetensorsBytes: Uint8Array };

export interface AdapterFiles {
  'adapter_config.json': Buffer;
  'adapter_model.safetensors': Buffer;
}

export function createAdapter(model: LlamaModel, options: AdapterOptions = {}): LoraAdapter {
  const rank = options.rank ?? 8;
  const alpha = options.alpha ?? 16;
  const targets = options.targetModules ?? [...PROJECTIONS];
  const rng = new SeededRandom(options.seed ?? 0);
  const layers = model.weights.layers.map(() => {
    const layer: Partial<Record<ProjectionName, LoraPair>> = {};
    for (const p of targets) {
      const [outF, inF] = projectionShape(model.config, p);
      // PEFT's default: A ~ kaiming-uniform, B = 0.
      const bound = 1 / Math.sqrt(inF);
      const a = new Float32Array(rank * inF);
      for (let i = 0; i < a.length; i++) a[i] = (rng.next() * 2 - 1) * bound;
      layer[p] = { a, b: new Float32Array(outF * rank), inF, outF };
    }
    return layer;
  });
  return { rank, alpha, scale: alpha / rank, targetModules: targets, layers, baseModelName: model.name, baseFingerprint: model.fingerprint, step: 0 };
}

export function cloneAdapter(adapter: LoraAdapter): LoraAdapter {
  return {
    ...adapter,
    targetModules: [...adapter.targetModules],
    layers: adapter.layers.map((layer) => {
      const copy: Partial<Record<ProjectionName, LoraPair>> = {};
      for (const [p, pair] of Object.entries(layer) as [ProjectionName, LoraPair][]) {
        copy[p] = { ...pair, a: pair.a.slice(), b: pair.b.slice() };
      }
      return copy;
    }),
  };
}

const peftName = (layer: number, p: ProjectionName, which: 'A' | 'B') =>
  `base_model.model.${projectionTensorName(layer, p)}.lora_${which}.weight`;

export function saveAdapter(adapter: LoraAdapter): AdapterFiles {
  const config = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: adapter.baseModelName,
    r: adapter.rank,
    lora_alpha: adapter.alpha,
    lora_dropout: 0,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    target_modules: adapter.targetModules,
    // Not a PEFT field (PEFT ignores unknown keys); lets loadAdapter refuse a different base.
    trellis_base_fingerprint: adapter.baseFingerprint,
    trellis_step: adapter.step,
  };
  const tensors: TensorMap = new Map();
  adapter.layers.forEach((layer, l) => {
    for (const [p, pair] of Object.entries(layer) as [ProjectionName, LoraPair][]) {
      tensors.set(peftName(l, p, 'A'), { shape: [adapter.rank, pair.inF], data: pair.a });
      tensors.set(peftName(l, p, 'B'), { shape: [pair.outF, adapter.rank], data: pair.b });
    }
  });
  return {
    'adapter_config.json': Buffer.from(JSON.stringify(config, null, 2) + '\n'),
    'adapter_model.safetensors': serializeSafetensors(tensors, { format: 'pt' }),
  };
}

export function loadAdapter(model: LlamaModel, source: AdapterSource): LoraAdapter {
  let configJson: string | Record<string, unknown>;
  let bytes: Uint8Array;
  if (typeof source === 'string') {
    const dir = resolve(source);
    configJson = readFileSync(join(dir, 'adapter_config.json'), 'utf8');
    bytes = readFileSync(join(dir, 'adapter_model.safetensors'));
  } else {
    configJson = source.adapterConfigJson;
    bytes = source.safetensorsBytes;
  }
  let cfg: Record<string, unknown>;
  try {
    cfg = typeof configJson === 'string' ? JSON.parse(configJson) : configJson;
  } catch (err) {
    throw new AdapterFormatError(`adapter_config.json is not valid JSON: ${(err as Error).message}`);
  }
  if (cfg.peft_type !== undefined && cfg.peft_type !== 'LORA') {
    throw new AdapterFormatError(`adapter peft_type is ${JSON.stringify(cfg.peft_type)}, only LORA is supported`);
  }
  const rank = cfg.r;
  const alpha = cfg.lora_alpha ?? rank;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank <= 0 || typeof alpha !== 'number') {
    throw new AdapterFormatError('adapter_config.json needs a positive integer r and a numeric lora_alpha');
  }
  if (typeof cfg.trellis_base_fingerprint === 'string' && cfg.trellis_base_fingerprint !== model.fingerprint) {
    throw new AdapterBaseMismatchError(
      `adapter was trained on base model "${String(cfg.base_model_name_or_path)}" (fingerprint ${cfg.trellis_base_fingerprint.slice(0, 12)}…), not on "${model.name}" (${model.fingerprint.slice(0, 12)}…)`,
    );
  }
  let tensors: TensorMap;
  try {
    tensors = parseSafetensors(bytes).tensors;
  } catch (err) {
    if (err instanceof SafetensorsFormatError) throw new SafetensorsFormatError(`adapter_model.safetensors: ${err.message}`);
    throw err;
  }
  const pattern = /^base_model\.model\.model\.layers\.(\d+)\.(self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$/;
  const layers: Array<Partial<Record<ProjectionName, LoraPair>>> = model.weights.layers.map(() => ({}));
  const targets = new Set<ProjectionName>();
  for (const [name, tensor] of tensors) {
    const m = pattern.exec(name);
    if (!m) throw new AdapterFormatError(`adapter tensor ${name} is not a PEFT LoRA tensor name this runtime understands`);
    const layer = Number(m[1]);
    const p = m[3] as ProjectionName;
    if (!PROJECTIONS.includes(p)) throw new AdapterFormatError(`adapter tensor ${name} targets unknown module ${p}`);
    if (layer >= model.config.numLayers) {
      throw new AdapterBaseMismatchError(`adapter has weights for layer ${layer} but the base model has ${model.config.numLayers} layers`);
    }
    const [outF, inF] = projectionShape(model.config, p);
    const expected = m[4] === 'A' ? [rank, inF] : [outF, rank];
    if (tensor.shape.length !== 2 || tensor.shape[0] !== expected[0] || tensor.shape[1] !== expected[1]) {
      throw new AdapterBaseMismatchError(`adapter tensor ${name} has shape [${tensor.shape}] but this base model needs [${expected}]`);
    }
    const pair = (layers[layer][p] ??= { a: new Float32Array(0), b: new Float32Array(0), inF, outF });
    if (m[4] === 'A') pair.a = tensor.data; else pair.b = tensor.data;
    targets.add(p);
  }
  layers.forEach((layer, l) => {
    for (const [p, pair] of Object.entries(layer) as [ProjectionName, LoraPair][]) {
      if (pair.a.length === 0 || pair.b.length === 0) throw new AdapterFormatError(`adapter layer ${l} ${p} has only one of lora_A / lora_B`);
    }
  });
  if (targets.size === 0) throw new AdapterFormatError('adapter_model.safetensors contains no LoRA tensors');
  return {
    rank,
    alpha,
    scale: alpha / rank,
    targetModules: PROJECTIONS.filter((p) => targets.has(p)),
    layers,
    baseModelName: typeof cfg.base_model_name_or_path === 'string' ? cfg.base_model_name_or_path : model.name,
    baseFingerprint: model.fingerprint,
    step: typeof cfg.trellis_step === 'number' ? cfg.trellis_step : 0,
  };
}
