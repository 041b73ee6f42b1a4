import { integer, type PlatformConfig } from '../config.js';
import { RequestLimiter, type LimitSettings } from './request-limiter.js';

/**
 * The limits on requests to models, from the platform's environment (0 = no limit). The variables keep their
 * inference names: they apply to every path to a model (inference's chat completions and training's checkpoint
 * completions alike).
 */
export function loadModelLimits(config: PlatformConfig): LimitSettings {
  const env = config.env as NodeJS.ProcessEnv;
  return {
    keyConcurrency: integer(env, 'TRELLIS_INFERENCE_KEY_CONCURRENCY', 0, 0, 1_000_000),
    keyRequestsPerMinute: integer(env, 'TRELLIS_INFERENCE_KEY_RPM', 0, 0, 100_000),
    projectConcurrency: integer(env, 'TRELLIS_INFERENCE_PROJECT_CONCURRENCY', 0, 0, 1_000_000),
    projectRequestsPerMinute: integer(env, 'TRELLIS_INFERENCE_PROJECT_RPM', 0, 0, 100_000),
  };
}

/** The process's model limiter: the one handed to subgraphs by the composition root, or a subgraph's own in tools. */
export function createModelLimiter(config: PlatformConfig): RequestLimiter {
  return new RequestLimiter(loadModelLimits(config));
}

/** Where a model request that names no project is counted: the caller's default entity, this project. */
export const DEFAULT_USAGE_PROJECT = 'inference';
