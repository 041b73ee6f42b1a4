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

/** Runs one check with a time limit, measuring how long it took; a throw or a timeout is a failed check. */
async function timed(check: () => Promise<Record<string, unknown> | void>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const details = await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { success: true, duration: (performance.now() - started) / 1000, errors: [], ...(details ? { details } : {}) };
  } catch (error) {
    return { success: false, duration: (performance.now() - started) / 1000, errors: [(error as Error).message] };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The checks behind /v1/system-check. `extraChecks` lets the job queue and the workers add their own (each
 * returns details or throws); the report fails when any check fails.
 */
export async function runSystemCheck(
  store: TrainingStore,
  extraChecks: Record<string, () => Promise<Record<string, unknown> | void>> = {},
): Promise<SystemCheckReport> {
  type Check = () => Promise<Record<string, unknown> | void>;
  const entries = Object.entries<Check>({
    api: async () => undefined,
    database: () => store.ping(),
    job_store: async () => ({ jobs_by_status: await store.countJobsByStatus() }),
    ...extraChecks,
  });
  const results = await Promise.all(entries.map(async ([name, check]) => [name, await timed(check)] as const));
  const checks = Object.fromEntries(results);
  return { success: results.every(([, result]) => result.success), checks };
}
