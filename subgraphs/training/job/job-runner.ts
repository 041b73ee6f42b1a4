import {
  TRAINING_CHECKPOINT_SAVED_EVENT,
  TRAINING_RUN_FAILED_EVENT,
  TRAINING_RUN_FINISHED_EVENT,
  TRAINING_RUN_STARTED_EVENT,
  type TrainingCheckpointSavedPayload,
} from '../../../platform/events/contracts.js';
import type { Logger } from '../../../platform/logger.js';
import type { JobRow, ModelRow, TrainingDb, TrainingStore } from '../store.js';
import type { TrainingConfig } from '../training-config.js';
import type { TrajectoryGroup } from '../training.schemas.js';
import { TrainingInputError, type AdapterFiles, type StepMetrics, type TrainerBackend, type TrainingWork } from '../trainer/trainer-backend.js';
import { parseTrainJsonl } from '../sft/train-jsonl.js';
import { enqueueTrainingJob } from './job-queue.js';
import { publishTrainingEvent, type TrainingRunRefFields } from './training-run-events.js';

/**
 * Runs one training job end to end: claims it (QUEUED → RUNNING), trains through the backend with a heartbeat,
 * writes `gradient_step` events as steps finish, and in one transaction stores the checkpoint, writes
 * `training_ended` and marks the job SUCCEEDED — so a client that sees `training_ended` finds the new step.
 * A failure writes `training_failed` with the reason; a cancelled job's training is aborted and discarded.
 */
export class TrainingJobRunner {
  private readonly inFlight = new Map<string, AbortController>();
  private stopping = false;

  constructor(
    private readonly store: TrainingStore,
    private readonly backend: TrainerBackend,
    private readonly config: TrainingConfig,
    private readonly logger: Logger,
  ) {}

  async run(jobId: string): Promise<void> {
    const claimed = await this.claim(jobId);
    if (!claimed) return;
    const { job, model } = claimed;
    const controller = new AbortController();
    this.inFlight.set(jobId, controller);
    let cancelled = false;
    const heartbeat = setInterval(() => {
      this.store.heartbeat(jobId).then(
        (status) => {
          if (status !== 'RUNNING') {
            cancelled = true;
            controller.abort();
          }
        },
        (error: unknown) => this.logger.warn({ err: error, jobId }, 'training heartbeat failed'),
      );
    }, this.config.heartbeatMs);
    heartbeat.unref();
    // Step events are written in order, one after the other, while training continues in its thread.
    let stepWrites: Promise<void> = Promise.resolve();
    try {
      const work = await this.workOf(job);
      const numSequences = work.kind === 'RL' ? work.trajectoryGroups.reduce((n, group) => n + group.trajectories.length, 0) : work.examples.length;
      await this.store.transaction((trx) => this.store.insertJobEvent(trx, jobId, 'training_started', { num_sequences: numSequences }));
      const latest = await this.store.latestCheckpoint(model.id);
      const adapter =
        latest?.adapter_config && latest.adapter_weights
          ? {
              id: latest.id,
              files: { 'adapter_config.json': Buffer.from(latest.adapter_config), 'adapter_model.safetensors': latest.adapter_weights },
            }
          : null;
      let lastMetrics: StepMetrics = {};
      const onStep = (metrics: StepMetrics) => {
        lastMetrics = metrics;
        stepWrites = stepWrites
          .then(() => this.store.transaction((trx) => this.store.insertJobEvent(trx, jobId, 'gradient_step', metrics)))
          .catch((error: unknown) => this.logger.warn({ err: error, jobId }, 'could not record a gradient step'));
      };
      const result = await this.backend.train({ jobId, baseModel: model.base_model, adapter, work, signal: controller.signal }, onStep);
      await stepWrites;
      await this.succeed(job, model, result.step, result.files, lastMetrics);
    } catch (error) {
      await stepWrites;
      if (cancelled) return; // the cancel already ended the job (status and event)
      if (this.stopping && controller.signal.aborted) return this.handBack(jobId);
      const message = error instanceof TrainingInputError ? error.message : `Training failed: ${(error as Error).message}`;
      if (!(error instanceof TrainingInputError)) this.logger.error({ err: error, jobId }, 'training job failed');
      await this.fail(jobId, message);
    } finally {
      clearInterval(heartbeat);
      this.inFlight.delete(jobId);
    }
  }

  /** Aborts in-flight trainings; each is handed back to the queue for another worker (not counted as an attempt). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const controller of this.inFlight.values()) controller.abort();
  }

  /** After stop(): releases the trainer's threads. */
  async close(): Promise<void> {
    await this.backend.close?.();
  }

  private claim(jobId: string): Promise<{ job: JobRow; model: ModelRow } | undefined> {
    return this.store.transaction(async (trx) => {
      const job = await this.store.jobForUpdate(trx, jobId);
      // Cancelled before it started, finished, or already claimed by another attempt: nothing to do.
      if (!job || job.status !== 'QUEUED') return undefined;
      const model = (await this.store.model(job.model_id, trx))!;
      const now = new Date();
      await this.store.updateJob(trx, jobId, {
        status: 'RUNNING',
        attempts: job.attempts + 1,
        heartbeat_at: now,
        training_start: job.training_start ?? now,
      });
      await publishTrainingEvent(trx, TRAINING_RUN_STARTED_EVENT, job, model);
      return { job, model };
    });
  }

  private async workOf(job: JobRow): Promise<TrainingWork> {
    const request = job.request as Record<string, any>;
    if (job.kind === 'RL') {
      // Choices without logprobs are trained, not refused: the trainer scores them under the adapter it starts from —
      // the job's starting checkpoint, which the platform served the rollouts with (step 0: the base model). ART's
      // `allow_training_without_logprobs: false` stays recorded on the job as sent.
      const config = { ...trainerConfig(request.experimental_config), allow_training_without_logprobs: true };
      return { kind: 'RL', trajectoryGroups: request.trajectory_groups as TrajectoryGroup[], config };
    }
    // The copy of train.jsonl taken when the job was submitted (training trains on what was submitted).
    const dataset = await this.store.jobDataset(job.id);
    if (!dataset) throw new TrainingInputError(`The job has no dataset snapshot of ${String(request.training_data_url)}; submit it again`);
    const { examples, lineNumbers } = parseTrainJsonl(dataset.content);
    return { kind: 'SFT', examples, lineNumbers, config: { ...trainerConfig(request.experimental_config), ...trainerConfig(request.config) } };
  }

  private succeed(submitted: JobRow, model: ModelRow, trainedStep: number, files: AdapterFiles, metrics: StepMetrics): Promise<void> {
    const jobId = submitted.id;
    return this.store.transaction(async (trx) => {
      const job = await this.store.jobForUpdate(trx, jobId);
      if (job?.status !== 'RUNNING') return; // cancelled while the last step finished: discard it
      // Two jobs of one model may finish at once: the model lock orders them, and each gets the next free step.
      await this.store.lockModel(trx, model.id);
      const latest = await this.store.latestCheckpoint(model.id, trx);
      const step = Math.max(trainedStep, (latest?.step ?? 0) + 1);
      await this.store.insertCheckpoint(trx, {
        model_id: model.id,
        step,
        metrics,
        adapter_config: files['adapter_config.json'].toString('utf8'),
        adapter_weights: files['adapter_model.safetensors'],
      });
      // The registry's copy (artifact version step{N}/latest, run metrics) follows through the outbox.
      await publishTrainingEvent(trx, TRAINING_CHECKPOINT_SAVED_EVENT, job, model, {
        step,
        metrics,
        files: Object.entries(files).map(([path, content]) => ({ path, content_base64: content.toString('base64') })),
      } satisfies Omit<TrainingCheckpointSavedPayload, keyof TrainingRunRefFields>);
      await publishTrainingEvent(trx, TRAINING_RUN_FINISHED_EVENT, job, model);
      await this.store.insertJobEvent(trx, jobId, 'training_ended', { step });
      await this.store.updateJob(trx, jobId, { status: 'SUCCEEDED', training_end: new Date(), heartbeat_at: null });
    });
  }

  private fail(jobId: string, message: string): Promise<void> {
    return this.store.transaction(async (trx) => {
      const job = await this.store.jobForUpdate(trx, jobId);
      if (job?.status !== 'RUNNING') return;
      const model = (await this.store.model(job.model_id, trx))!;
      await publishTrainingEvent(trx, TRAINING_RUN_FAILED_EVENT, job, model, { error_message: message });
      await this.store.insertJobEvent(trx, jobId, 'training_failed', { error_message: message });
      await this.store.updateJob(trx, jobId, { status: 'FAILED', error_message: message, training_end: new Date(), heartbeat_at: null });
    });
  }

  private handBack(jobId: string): Promise<void> {
    return this.store.transaction(async (trx) => {
      const job = await this.store.jobForUpdate(trx, jobId);
      if (job?.status !== 'RUNNING') return;
      await this.store.updateJob(trx, jobId, { status: 'QUEUED', attempts: job.attempts - 1, heartbeat_at: null });
      await enqueueTrainingJob(trx, jobId, job.attempts + 1);
    });
  }
}

/**
 * The trainer's knobs from ART's configs: numbers, booleans, strings and lists of numbers (SFT's learning rate per
 * batch); objects are left out, and unknown fields are ignored by the trainer.
 */
function trainerConfig(config: unknown): Record<string, unknown> {
  if (!config || typeof config !== 'object') return {};
  const isKnob = (value: unknown) =>
    value !== null && (typeof value !== 'object' || (Array.isArray(value) && value.every((item) => typeof item === 'number')));
  return Object.fromEntries(Object.entries(config).filter(([, value]) => isKnob(value)));
}
