import { run, type Runner } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import type { TrainingStore } from '../store.js';
import type { TrainingConfig } from '../training-config.js';
import { enqueueTrainingJob, graphileLogger, queueStats, TRAINING_TASK } from './job-queue.js';
import { trainingQueueJobs } from '../../../platform/http/worker-metrics.js';
import { TRAINING_RUN_FAILED_EVENT } from '../../../platform/events/contracts.js';
import type { TrainingJobRunner } from './job-runner.js';
import { publishTrainingEvent } from './training-run-events.js';

/** How often the queue's depth is sampled for /metrics (about a Prometheus scrape interval). */
const QUEUE_DEPTH_SAMPLE_MS = 10_000;

/**
 * Consumes the training queue (graphile-worker, `concurrency` jobs at a time) and watches heartbeats: a RUNNING job
 * whose worker stopped beating (process killed, machine lost) is put back in the queue once, and after
 * `maxAttempts` failed with a message saying so — never left RUNNING. Every process running this worker sweeps;
 * row locks (SKIP LOCKED) make each stale job handled once.
 */
export class TrainingQueueWorker implements BackgroundWorker {
  readonly name = 'training-queue';
  /** TRELLIS_TRAINING_CONCURRENCY is the platform's, not each process's. */
  readonly onePerPlatform = true;
  private runner: Runner | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private depthTimer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: TrainingStore,
    private readonly jobs: TrainingJobRunner,
    private readonly config: TrainingConfig,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.runner = await run({
      pgPool: this.pool,
      concurrency: this.config.concurrency,
      noHandleSignals: true,
      pollInterval: 1_000,
      logger: graphileLogger(this.logger),
      taskList: {
        [TRAINING_TASK]: async (payload) => {
          await this.jobs.run((payload as { jobId: string }).jobId);
        },
      },
    });
    this.sweepTimer = setInterval(() => {
      this.sweeping = this.sweepStaleJobs().catch((error: unknown) => this.logger.warn({ err: error }, 'training heartbeat sweep failed'));
    }, this.config.heartbeatMs);
    this.sweepTimer.unref();
    // The queue's depth for /metrics (trellis_training_queue_jobs), sampled rather than counted per request.
    const sampleDepth = () => {
      this.sampling = queueStats(this.store.db, 'all').then(
        ({ pending, locked }) => {
          trainingQueueJobs.set({ state: 'pending' }, pending);
          trainingQueueJobs.set({ state: 'locked' }, locked);
        },
        (error: unknown) => this.logger.debug({ err: error }, 'sampling the training queue depth failed'),
      );
    };
    sampleDepth();
    this.depthTimer = setInterval(sampleDepth, QUEUE_DEPTH_SAMPLE_MS);
    this.depthTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    clearInterval(this.depthTimer);
    await this.sweeping;
    await this.sampling;
    await this.jobs.stop();
    await this.runner?.stop();
  }

  /** Retries or fails RUNNING jobs without a recent heartbeat. Returns nothing; the job rows say what happened. */
  async sweepStaleJobs(): Promise<void> {
    const staleBefore = new Date(Date.now() - this.config.staleAfterMs);
    await this.store.transaction(async (trx) => {
      for (const job of await this.store.staleJobsForUpdate(trx, staleBefore)) {
        const seconds = Math.round(this.config.staleAfterMs / 1000);
        if (job.attempts < this.config.maxAttempts) {
          this.logger.warn({ jobId: job.id, attempt: job.attempts }, 'training worker stopped sending heartbeats; retrying the job');
          await this.store.updateJob(trx, job.id, { status: 'QUEUED', heartbeat_at: null });
          await enqueueTrainingJob(trx, job.id, job.attempts + 1);
        } else {
          const model = (await this.store.model(job.model_id, trx))!;
          const message = `The training worker stopped responding (no heartbeat for ${seconds} s) on attempt ${job.attempts} of ${this.config.maxAttempts}; the job was not retried again`;
          this.logger.warn({ jobId: job.id }, message);
          await publishTrainingEvent(trx, TRAINING_RUN_FAILED_EVENT, job, model, { error_message: message });
          await this.store.insertJobEvent(trx, job.id, 'training_failed', { error_message: message });
          await this.store.updateJob(trx, job.id, { status: 'FAILED', error_message: message, training_end: new Date(), heartbeat_at: null });
        }
      }
    });
  }
}
