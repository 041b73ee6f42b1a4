import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface NodeProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * The JavaScript of a TypeScript entry point of the repo (`server/main.ts`), from the run's one-time transpilation
 * (test/support/compiled-sources.ts, done in the global set-up).
 */
export function compiledEntry(entry: string): string {
  return path.join(inject('compiledSourcesDir'), entry.replace(/\.ts$/, '.js'));
}

/** Runs a TypeScript entry point of the repo as its own OS process (its compiled JavaScript), capturing its output. */
export function spawnEntry(entry: string, args: string[], env: Record<string, string>, options: { input?: string } = {}): NodeProcess {
  const child = spawn(process.execPath, ['--enable-source-maps', compiledEntry(entry), ...args], {
    cwd: REPO_ROOT,
    // NODE_ENV=test (set by vitest) changes library behaviour (Apollo skips its signal handlers): run as users do.
    // One platform process unless a test asks for more (TRELLIS_PROCESSES; '' is npm start's default, one per core).
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', TRELLIS_PROCESSES: '1', ...env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => output, exited, kill: (signal = 'SIGTERM') => child.kill(signal) };
}

/** Polls a URL until it answers 2xx, or fails with the process output after `timeoutMs`. */
export async function waitForHttp(url: string, owner: NodeProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (owner.child.exitCode !== null) throw new Error(`process exited early:\n${owner.output()}`);
    try {
      // A per-attempt timeout: polling a not-yet-bound ephemeral port can self-connect and never be answered.
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for ${url}:\n${owner.output()}`);
}

/** Waits until the process has printed `text` (e.g. the start banner), or fails with its output. */
export async function waitForOutput(owner: NodeProcess, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!owner.output().includes(text)) {
    if (Date.now() > deadline || owner.child.exitCode !== null) throw new Error(`no "${text}" in the output:\n${owner.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
