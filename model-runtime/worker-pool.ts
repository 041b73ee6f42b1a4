/**
 * Running the model off the main thread: a small pool of generation workers
 * (streaming tokens back, cancellable with AbortSignal) and one-off training
 * workers, so the API's event loop stays responsive while a job computes.
 */
import type { Worker } from 'node:worker_threads';
import { OperationCancelledError } from './errors.js';
import type { AdapterFiles } from './lora-adapter.js';
import type { EmbedResult } from './embed.js';
import type { GenerationResult, TokenListener } from './generate.js';
import type { ModelSource } from './model.js';
import type { RlStepMetrics } from './rl-trainer.js';
import type { SftStepMetrics } from './sft-trainer.js';
import { startRuntimeWorker } from './start-runtime-worker.js';
import {
  type FromWorker, type ToWorker, type WorkerEmbedRequest, type WorkerGenerateRequest, type WorkerInit, type WorkerTrainingJob, deserializeError, toAdapterFiles,
} from './worker-protocol.js';

type JobMessage =
  | { type: 'generate'; request: WorkerGenerateRequest; stream: boolean }
  | { type: 'embed'; request: WorkerEmbedRequest }
  | { type: 'train'; job: WorkerTrainingJob };

const OPERATION_NAMES: Record<JobMessage['type'], string> = { generate: 'generation', embed: 'embedding', train: 'training' };

interface PendingJob {
  onMessage(message: FromWorker): void;
  fail(err: Error): void;
}

class RuntimeWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  private readonly jobs = new Map<number, PendingJob>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(init: WorkerInit) {
    this.worker = startRuntimeWorker(init);
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (m: FromWorker) => {
        if (m.type === 'ready') resolve();
      };
      this.worker.once('error', reject);
      this.worker.on('message', onMessage);
    });
    this.worker.on('message', (m: FromWorker) => {
      if (m.type !== 'ready') this.jobs.get(m.id)?.onMessage(m);
    });
    // A crashed worker (e.g. out of memory) fails its jobs instead of taking the process down.
    const failAll = (err: Error) => {
      this.failure = err;
      for (const job of this.jobs.values()) job.fail(err);
      this.jobs.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => failAll(new Error(`model-runtime worker exited with code ${code}`)));
  }

  get busy(): number {
    return this.jobs.size;
  }

  get failed(): boolean {
    return this.failure !== null;
  }

  run<T>(message: JobMessage, signal: AbortSignal | undefined, onEvent: (m: FromWorker) => void, done: (m: FromWorker) => T | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      if (signal?.aborted) return reject(new OperationCancelledError(OPERATION_NAMES[message.type]));
      const id = this.nextId++;
      // An abort settles the caller's promise at once, like fetch's: the worker may already have finished (a short
      // generation can be done before the cancel reaches it), and its answer is then ignored. The job stays counted
      // as busy until the worker's last message for it.
      const onAbort = () => {
        this.worker.postMessage({ type: 'cancel', id } satisfies ToWorker);
        reject(new OperationCancelledError(OPERATION_NAMES[message.type]));
      };
      const finish = () => {
        this.jobs.delete(id);
        signal?.removeEventListener('abort', onAbort);
      };
      this.jobs.set(id, {
        onMessage: (m) => {
          if (m.type === 'error') {
            finish();
            reject(deserializeError(m.error));
            return;
          }
          const value = done(m);
          if (value !== undefined) {
            finish();
            resolve(value);
          } else {
            onEvent(m);
          }
        },
        fail: (err) => {
          finish();
          reject(err);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.postMessage({ ...message, id } as ToWorker);
    });
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

export interface GenerationWorkerPoolOptions {
  model: ModelSource;
  /** Worker threads (default 2: this machine has two cores). */
  size?: number;
}

/** Serves generate() on worker threads; requests go to the least-busy worker. */
export class GenerationWorkerPool {
  private readonly workers: RuntimeWorker[];

  constructor(private readonly options: GenerationWorkerPoolOptions) {
    this.workers = Array.from({ length: options.size ?? 2 }, () => new RuntimeWorker({ model: options.model }));
  }

  /** Resolves once every worker has loaded the model (rejects if the model cannot be loaded). */
  async ready(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.ready));
  }

  async generate(request: WorkerGenerateRequest & { signal?: AbortSignal }, onToken?: TokenListener): Promise<GenerationResult> {
    const { signal, ...rest } = request;
    const index = this.pickWorker();
    await this.workers[index].ready;
    return this.workers[index].run<GenerationResult>(
      { type: 'generate', request: rest, stream: onToken !== undefined },
      signal,
      (m) => { if (m.type === 'token') onToken?.(m.event); },
      (m) => (m.type === 'generated' ? m.result : undefined),
    );
  }

  /** Embeddings of the inputs (see embed.ts), on the least-busy worker. */
  async embed(request: WorkerEmbedRequest & { signal?: AbortSignal }): Promise<EmbedResult> {
    const { signal, ...rest } = request;
    const index = this.pickWorker();
    await this.workers[index].ready;
    return this.workers[index].run<EmbedResult>(
      { type: 'embed', request: rest },
      signal,
      () => undefined,
      (m) => (m.type === 'embedded' ? m.result : undefined),
    );
  }

  private pickWorker(): number {
    // Replace a worker that died so one crash does not shrink the pool for good.
    this.workers.forEach((w, i) => {
      if (w.failed) this.workers[i] = new RuntimeWorker({ model: this.options.model });
    });
    let best = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.workers[i].busy < this.workers[best].busy) best = i;
    return best;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/**
 * Run one SFT or RL job on a fresh worker thread and return the trained adapter's
 * files. The worker is terminated afterwards (also on error or cancellation).
 */
export async function runTrainingInWorker(
  model: ModelSource,
  job: WorkerTrainingJob,
  onStep?: (metrics: SftStepMetrics | RlStepMetrics) => void,
  signal?: AbortSignal,
): Promise<AdapterFiles> {
  const worker = new RuntimeWorker({ model });
  try {
    await worker.ready;
    const files = await worker.run<{ 'adapter_config.json': Uint8Array; 'adapter_model.safetensors': Uint8Array }>(
      { type: 'train', job },
      signal,
      (m) => { if (m.type === 'step') onStep?.(m.metrics); },
      (m) => (m.type === 'trained' ? m.files : undefined),
    );
    return toAdapterFiles(files);
  } finally {
    await worker.terminate();
  }
}
