import type { TrainingStore } from '../store.js';

export interface CheckResult {
  success: boolean;
  /** Seconds, like the hosted service's report. */
  duration: number;
  errors: string[];
  details?: Record<string, unknown>;
}

export interface SystemCheckReport {
  success: boolean;
  checks: Record<string, CheckResult>;
}

const CHECK_TIMEOUT_MS = 5_000;

/** A failure whose message is written for anyone (no counts, hosts or settings): shown to anonymous callers too. */
export class PublicCheckError extends Error {}

/** What an anonymous caller reads instead of any other failure's message (a driver error can name hosts). */
const UNDISCLOSED = 'check failed (details with an API key)';

/**
 * Runs one check with a time limit, measuring how long it took; a throw or a timeout is a failed check. Without
 * `disclose`, the result has no details and only public failure messages.
 */
async function timed(check: () => Promise<Record<string, unknown> | void>, disclose: boolean): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const details = await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new PublicCheckError(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { success: true, duration: (performance.now() - started) / 1000, errors: [], ...(details && disclose ? { details } : {}) };
  } catch (error) {
    const message = disclose || error instanceof PublicCheckError ? (error as Error).message : UNDISCLOSED;
    return { success: false, duration: (performance.now() - started) / 1000, errors: [message] };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The checks behind /v1/system-check. `extraChecks` lets the job store, queue and workers add their own (each
 * returns details or throws); the report fails when any check fails. Without `details` (an anonymous caller)
 * each check says only whether it passed, how long it took and why it failed: no counts, no settings.
 */
export async function runSystemCheck(
  store: TrainingStore,
  extraChecks: Record<string, () => Promise<Record<string, unknown> | void>> = {},
  options: { details: boolean } = { details: true },
): Promise<SystemCheckReport> {
  type Check = () => Promise<Record<string, unknown> | void>;
  const entries = Object.entries<Check>({
    api: async () => undefined,
    database: () => store.ping(),
    ...extraChecks,
  });
  const results = await Promise.all(entries.map(async ([name, check]) => [name, await timed(check, options.details)] as const));
  const checks = Object.fromEntries(results);
  return { success: results.every(([, result]) => result.success), checks };
}
