import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase } from '../platform/db/connection.js';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../platform/db/embedded-postgres.js';

/** Shared helpers of the benchmark scripts (compiled to dist/bench, run with plain node). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(samplesMs: number[]): { median: number; p99: number; n: number } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

export function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

export interface Service {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts a compiled entry point (dist/...) as a process. */
export function startService(entry: string, args: string[], env: Record<string, string>): Service {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', entry), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function waitUntilOk(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      // A per-attempt timeout: polling a not-yet-bound ephemeral port can self-connect and never be answered.
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${url}`);
}

/** Resident set size of a process in MiB (Linux). */
export async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** A platform process for a bench: its own database, and embedded PostgreSQL unless DATABASE_URL names a server. */
export interface BenchPlatform {
  url: string;
  databaseUrl: string;
  service: Service;
  /** The PostgreSQL the bench started itself (its processes' CPU can be read); undefined with DATABASE_URL. */
  postgres: RunningPostgres | undefined;
  /** That PostgreSQL's cluster directory. */
  postgresDir: string | undefined;
  /** Stops the platform, then PostgreSQL, and removes the temporary directory. */
  close(): Promise<void>;
}

/**
 * `server/main.js` on a fresh database named `trellis_bench_<name>_<time>`, with `key` as its bootstrap admin key and
 * `env` added, answering /healthz. Whatever started is stopped again when start-up fails.
 */
export async function startBenchPlatform(
  name: string,
  key: string,
  env: Record<string, string> = {},
  options: { postgresSettings?: readonly string[] } = {},
): Promise<BenchPlatform> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), `trellis-bench-${name}-`));
  const postgresDir = path.join(tmp, 'pg');
  let postgres: RunningPostgres | undefined;
  let service: Service | undefined;
  const close = async () => {
    await service?.stop();
    await postgres?.stop();
    await rm(tmp, { recursive: true, force: true });
  };
  try {
    let serverUrl = process.env.DATABASE_URL;
    if (!serverUrl) {
      postgres = await startEmbeddedPostgres({ dataDir: postgresDir, ...(options.postgresSettings ? { settings: options.postgresSettings } : {}) });
      serverUrl = postgres.url;
    }
    const databaseUrl = await createDatabase(serverUrl, `trellis_bench_${name}_${Date.now()}`);
    const port = await freePort();
    service = startService('server/main.js', [], {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      TRELLIS_BOOTSTRAP_API_KEY: key,
      TRELLIS_DATA_DIR: path.join(tmp, 'data'),
      ...env,
    });
    const url = `http://127.0.0.1:${port}`;
    await waitUntilOk(`${url}/healthz`);
    return { url, databaseUrl, service, postgres, postgresDir: postgres ? postgresDir : undefined, close };
  } catch (error) {
    await close();
    throw error;
  }
}
