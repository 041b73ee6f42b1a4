import { retentionDays, type PlatformConfig } from '../../platform/config.js';

/** Settings of the tracing subgraph, parsed from the platform's environment as strictly as platform/config.ts. */
export interface TracingConfig {
  /**
   * Traces older than this many days are deleted in projects without a retention of their own
   * (TRELLIS_TRACE_RETENTION_DAYS); undefined: kept forever.
   */
  traceRetentionDays: number | undefined;
}

export function loadTracingConfig(config: PlatformConfig): TracingConfig {
  return { traceRetentionDays: retentionDays(config.env as NodeJS.ProcessEnv, 'TRELLIS_TRACE_RETENTION_DAYS') };
}
