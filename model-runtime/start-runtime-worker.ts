import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { WorkerInit } from './worker-protocol.js';

/**
 * Starts a thread on the runtime's worker entry (runtime-worker), for this module's pools and for other packages
 * that keep their own threads (the training subgraph's warm trainers).
 *
 * Under vitest/tsx the sources are .ts, which a plain Node 20 worker cannot load,
 * and `execArgv: ['--import', 'tsx']` does not reach a worker's entry module on
 * Node 20. So from sources, a tiny CommonJS bootstrap registers tsx's loader
 * inside the worker and then imports the .ts entry; from dist/, the .js entry
 * starts directly.
 */
export function startRuntimeWorker(init: WorkerInit): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./runtime-worker.js', import.meta.url), { workerData: init });
  }
  const tsxApi = createRequire(import.meta.url).resolve('tsx/esm/api');
  const entry = new URL('./runtime-worker.ts', import.meta.url).href;
  const bootstrap = `require(${JSON.stringify(tsxApi)}).register(); import(${JSON.stringify(entry)});`;
  return new Worker(bootstrap, { eval: true, workerData: init });
}
