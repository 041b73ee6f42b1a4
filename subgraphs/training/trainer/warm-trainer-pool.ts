import type { Worker } from 'node:worker_threads';
import { OperationCancelledError, type AdapterFiles, type RlStepMetrics, type SftStepMetrics, type WorkerTrainingJob } from '../../../model-runtime/index.js';
import { deserializeError, toAdapterFiles, type FromWorker, type ToWorker, type WorkerInit } from '../../../model-runtime/worker-protocol.js';
import { startRuntimeWorker } from '../../../model-runtime/start-runtime-worker.js';

type StepListener = (metrics: SftStepMetrics | RlStepMetrics) => void;

/** One worker thread with the base model loaded; trains one job at a time. */
class TrainerThread {
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private current: { id: number; onMessage(message: FromWorker): void; fail(error: Error): void } | undefined;
  private nextId = 1;
  private failure: Error | undefined;

  constructor(init: WorkerInit) {
    this.worker = startRuntimeWorker(init);
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') resolve();
        else if (this.current && message.id === this.current.id) this.current.onMessage(message);
      });
      const fail = (error: Error) => {
        this.failure ??= error;
        reject(error);
        this.current?.fail(error);
      };
      this.worker.on('error', fail);
      this.worker.on('exit', (code) => fail(new Error(`training worker thread exited with code ${code}`)));
    });
    this.ready.catch(() => undefined); // observed by whoever uses the thread
    this.worker.unref(); // an idle warm thread must not keep the process alive
  }

  get usable(): boolean {
    return this.failure === undefined;
  }

  async train(job: WorkerTrainingJob, onStep: StepListener | undefined, signal: AbortSignal | undefined): Promise<AdapterFiles> {
    await this.ready;
    if (this.failure) throw this.failure;
    const id = this.nextId++;
    this.worker.ref();
    try {
      return await new Promise<AdapterFiles>((resolve, reject) => {
        if (signal?.aborted) return reject(new OperationCancelledError('training'));
        const settle = () => {
          this.current = undefined;
          signal?.removeEventListener('abort', onAbort);
        };
        // The pool terminates the thread: nothing it computes for this job is wanted any more.
        const onAbort = () => {
          settle();
          reject(new OperationCancelledError('training'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.current = {
          id,
          onMessage: (message) => {
            if (message.type === 'step') onStep?.(message.metrics);
            else if (message.type === 'trained') {
              settle();
              resolve(toAdapterFiles(message.files));
            } else if (message.type === 'error') {
              settle();
              reject(deserializeError(message.error));
            }
          },
          fail: (error) => {
            settle();
            reject(error);
          },
        };
        this.worker.postMessage({ type: 'train', id, job } satisfies ToWorker);
      });
    } finally {
      this.worker.unref();
    }
  }

  async terminate(): Promise<void> {
    this.failure ??= new Error('training worker thread terminated');
    await this.worker.terminate();
  }
}

/**
 * Keeps up to `size` training threads warm across jobs: starting a thread (loading the base model, warming the JIT)
 * costs more than a small job's training, so a job takes an idle thread when there is one. Threads start on first
 * use (a process that never trains holds none). A cancelled job's thread is terminated at once — its step may take
 * long, and the worker slot must be free now — and a fresh thread warms up in its place; a crashed thread is
 * replaced the same way.
 */
export class WarmTrainerPool {
  private readonly idle: TrainerThread[] = [];
  private busy = 0;
  private started = 0;
  private closed = false;

  constructor(
    private readonly model: string,
    private readonly size: number,
  ) {}

  async train(job: WorkerTrainingJob, onStep?: StepListener, signal?: AbortSignal): Promise<AdapterFiles> {
    if (this.closed) throw new Error('the training pool is closed');
    let thread = this.idle.pop();
    while (thread && !thread.usable) thread = this.idle.pop(); // crashed while idle
    thread ??= this.startThread();
    this.busy++;
    let reusable = false;
    try {
      const files = await thread.train(job, onStep, signal);
      reusable = true;
      return files;
    } catch (error) {
      // The thread finished the job with an error of the job's own (bad data): it is still good.
      reusable = thread.usable && !(error instanceof OperationCancelledError) && !signal?.aborted;
      throw error;
    } finally {
      this.busy--;
      if (reusable && !this.closed && this.idle.length + this.busy < this.size) this.idle.push(thread);
      else {
        void thread.terminate();
        this.warmReplacement();
      }
    }
  }

  /** Threads idle or training, and how many were ever started (for tests and diagnostics). */
  get threads(): { idle: number; busy: number; started: number } {
    return { idle: this.idle.length, busy: this.busy, started: this.started };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((thread) => thread.terminate()));
  }

  private warmReplacement(): void {
    if (this.closed || this.idle.length + this.busy >= this.size) return;
    this.idle.push(this.startThread());
  }

  private startThread(): TrainerThread {
    this.started++;
    return new TrainerThread({ model: this.model });
  }
}
