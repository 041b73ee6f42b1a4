import path from 'node:path';
import { integer, retentionDays, type PlatformConfig } from '../../platform/config.js';

/**
 * Settings of the inference subgraph, parsed from the platform's environment with the same strictness as
 * platform/config.ts (a typo fails at start-up). The request limits are the platform's (platform/model-access).
 */
export interface InferenceConfig {
  /** JSON model catalog read at start-up (`{ "models": [...] }`). */
  modelsFile: string | undefined;
  /** Default time an upstream may take before its first byte (and between bytes) before it counts as hung. */
  upstreamTimeoutMs: number;
  /** How long a deployment that failed is passed over while others are healthy. */
  cooldownMs: number;
  /** Connections kept per upstream deployment. */
  upstreamConnections: number;
  /** Usage records are written in batches at least this often. */
  usageFlushMs: number;
  /** How often the catalog is re-read, to see changes made by other processes. */
  catalogRefreshMs: number;
  /** JSON model prices read at start-up (`{ "prices": { "<model>": {...} } }`), over the shipped table. */
  modelPricesFile: string | undefined;
  /** Usage records older than this many days are deleted (TRELLIS_USAGE_RETENTION_DAYS); undefined: kept forever. */
  usageRetentionDays: number | undefined;
}

export function loadInferenceConfig(config: PlatformConfig): InferenceConfig {
  const env = config.env as NodeJS.ProcessEnv;
  const modelsFile = env.TRELLIS_MODELS_FILE?.trim();
  const modelPricesFile = env.TRELLIS_MODEL_PRICES_FILE?.trim();
  return {
    modelsFile: modelsFile ? path.resolve(modelsFile) : undefined,
    modelPricesFile: modelPricesFile ? path.resolve(modelPricesFile) : undefined,
    upstreamTimeoutMs: integer(env, 'TRELLIS_INFERENCE_UPSTREAM_TIMEOUT_MS', 600_000, 10, 3_600_000),
    cooldownMs: integer(env, 'TRELLIS_INFERENCE_COOLDOWN_MS', 10_000, 0, 3_600_000),
    upstreamConnections: integer(env, 'TRELLIS_INFERENCE_UPSTREAM_CONNECTIONS', 256, 1, 10_000),
    usageFlushMs: integer(env, 'TRELLIS_INFERENCE_USAGE_FLUSH_MS', 1_000, 10, 600_000),
    catalogRefreshMs: integer(env, 'TRELLIS_INFERENCE_CATALOG_REFRESH_MS', 10_000, 100, 3_600_000),
    usageRetentionDays: retentionDays(env, 'TRELLIS_USAGE_RETENTION_DAYS'),
  };
}
