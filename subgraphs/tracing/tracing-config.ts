import { integer, retentionDays, type PlatformConfig } from '../../platform/config.js';

/** Settings of the tracing subgraph, parsed from the platform's environment as strictly as platform/config.ts. */
export interface TracingConfig {
  /**
   * Traces older than this many days are deleted in projects without a retention of their own
   * (TRELLIS_TRACE_RETENTION_DAYS); undefined: kept forever.
   */
  traceRetentionDays: number | undefined;
  /**
   * A platform-run evaluation run whose process has not said it still runs it for this many seconds is finished as
   * an error (TRELLIS_EVALUATION_STALE_SECONDS, default 30): its process died.
   */
  evaluationStaleSeconds: number;
}

export function loadTracingConfig(config: PlatformConfig): TracingConfig {
  const env = config.env as NodeJS.ProcessEnv;
  return {
    traceRetentionDays: retentionDays(env, 'TRELLIS_TRACE_RETENTION_DAYS'),
    evaluationStaleSeconds: integer(env, 'TRELLIS_EVALUATION_STALE_SECONDS', 30, 3, 3_600),
  };
}
