import { integer, type PlatformConfig } from '../../platform/config.js';
import { EMBEDDED_BASE_MODELS } from './trainer/embedded-trainer.js';

/** Settings of the training subgraph (environment variables, validated like the platform's own). */
export interface TrainingConfig {
  /** Where jobs train: `embedded` (worker threads here) or `remote` (HTTP workers lease them; docs/training.md). */
  backend: 'embedded' | 'remote';
  /** Jobs one process trains at the same time (each in its own worker thread). */
  concurrency: number;
  /** How often a running job proves its worker is alive. */
  heartbeatMs: number;
  /** A RUNNING job without a heartbeat for this long is retried once, then failed. */
  staleAfterMs: number;
  /** Attempts before a job whose worker keeps dying is failed. */
  maxAttempts: number;
  /** Worker threads serving checkpoint chat completions (started on first use). */
  inferenceWorkers: number;
  /**
   * The base models a model may be created on: the embedded trainer's, or with the remote backend the ones its
   * workers can train, as the operator declares them (TRELLIS_TRAINING_REMOTE_BASE_MODELS, comma-separated;
   * default the embedded ones, which the reference worker trains with the embedded runtime).
   */
  trainableBaseModels: string[];
}

export function loadTrainingConfig(config: PlatformConfig): TrainingConfig {
  const env = config.env as NodeJS.ProcessEnv;
  const heartbeatMs = integer(env, 'TRELLIS_TRAINING_HEARTBEAT_MS', 2_000, 50, 600_000);
  const backend = env.TRELLIS_TRAINING_BACKEND ?? 'embedded';
  if (backend !== 'embedded' && backend !== 'remote') throw new Error(`TRELLIS_TRAINING_BACKEND must be embedded or remote, not "${backend}"`);
  return {
    backend,
    concurrency: integer(env, 'TRELLIS_TRAINING_CONCURRENCY', 1, 1, 64),
    heartbeatMs,
    staleAfterMs: integer(env, 'TRELLIS_TRAINING_STALE_AFTER_MS', Math.max(15_000, heartbeatMs * 5), 200, 3_600_000),
    maxAttempts: integer(env, 'TRELLIS_TRAINING_MAX_ATTEMPTS', 2, 1, 10),
    inferenceWorkers: integer(env, 'TRELLIS_TRAINING_INFERENCE_WORKERS', 1, 1, 16),
    trainableBaseModels: backend === 'remote' ? remoteBaseModels(env.TRELLIS_TRAINING_REMOTE_BASE_MODELS) : Object.keys(EMBEDDED_BASE_MODELS),
  };
}

function remoteBaseModels(declared: string | undefined): string[] {
  if (declared === undefined) return Object.keys(EMBEDDED_BASE_MODELS);
  const names = [...new Set(declared.split(',').map((name) => name.trim()).filter((name) => name !== ''))];
  if (names.length === 0) throw new Error('TRELLIS_TRAINING_REMOTE_BASE_MODELS must name at least one base model');
  return names;
}
