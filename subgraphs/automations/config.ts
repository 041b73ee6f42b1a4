import { integer, ConfigError, type PlatformConfig } from '../../platform/config.js';

/** The automations subgraph's own settings, parsed from the environment the platform was configured from. */
export interface AutomationsConfig {
  /** Master key for secrets at rest (hex or base64 of 32 bytes); generated into the data dir when unset. */
  secretKey: string | undefined;
  dataDir: string;
  /** CIDRs webhooks may reach even though they are private/loopback/etc. (`TRELLIS_WEBHOOK_ALLOW_CIDRS`). */
  allowCidrs: string[];
  /** Per-request time limit of a webhook delivery (default 10 s). */
  timeoutMs: number;
  /** Attempts before a delivery is marked failed. */
  maxAttempts: number;
  /** First retry delay; doubles per attempt, with jitter, up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Deliveries one worker process sends at once. */
  concurrency: number;
  /** Stored response bodies are cut to this many characters. */
  responseBodyLimit: number;
}

export function loadAutomationsConfig(platform: PlatformConfig): AutomationsConfig {
  const env = platform.env;
  const allowCidrs = (env.TRELLIS_WEBHOOK_ALLOW_CIDRS ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const cidr of allowCidrs) {
    if (!/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr)) throw new ConfigError(`TRELLIS_WEBHOOK_ALLOW_CIDRS entry "${cidr}" is not a CIDR (e.g. 127.0.0.0/8)`);
  }
  return {
    secretKey: env.TRELLIS_SECRET_KEY || undefined,
    dataDir: platform.dataDir,
    allowCidrs,
    timeoutMs: integer(env, 'TRELLIS_WEBHOOK_TIMEOUT_MS', 10_000, 50, 120_000),
    maxAttempts: integer(env, 'TRELLIS_WEBHOOK_MAX_ATTEMPTS', 10, 1, 50),
    retryBaseMs: integer(env, 'TRELLIS_WEBHOOK_RETRY_BASE_MS', 5_000, 1, 3_600_000),
    retryMaxMs: integer(env, 'TRELLIS_WEBHOOK_RETRY_MAX_MS', 3_600_000, 1, 86_400_000),
    concurrency: integer(env, 'TRELLIS_WEBHOOK_CONCURRENCY', 64, 1, 1024),
    responseBodyLimit: 2048,
  };
}
