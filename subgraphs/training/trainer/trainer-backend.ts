import type { TrajectoryGroup } from '../training.schemas.js';

/** LoRA adapter files in the PEFT layout (model-runtime saveAdapter output). */
export interface AdapterFiles {
  'adapter_config.json': Buffer;
  'adapter_model.safetensors': Buffer;
}

export type TrainingWork =
  | { kind: 'RL'; trajectoryGroups: TrajectoryGroup[]; config: Record<string, unknown> }
  | {
      kind: 'SFT';
      examples: { messages: unknown[]; tools?: unknown[] }[];
      /** The train.jsonl line of each example, so a trainer's complaint about examples[i] can name its line. */
      lineNumbers: number[];
      config: Record<string, unknown>;
    };

export interface TrainRequest {
  jobId: string;
  baseModel: string;
  /** The model's latest checkpoint, continued from; null trains a fresh adapter. */
  adapter: { id: string; files: AdapterFiles } | null;
  work: TrainingWork;
  signal: AbortSignal;
}

/** Metrics of one optimizer step; every value numeric (ART plots them). */
export type StepMetrics = Record<string, number>;

/**
 * Where training happens. `embedded` trains on this machine in a worker thread; a remote backend hands the job to
 * a worker elsewhere. Either way the result is the new adapter, and metrics arrive per step.
 */
export interface TrainerBackend {
  readonly name: string;
  train(request: TrainRequest, onStep: (metrics: StepMetrics) => void): Promise<{ files: AdapterFiles; step: number }>;
  /** Releases threads or connections at shutdown, after in-flight jobs were stopped. */
  close?(): Promise<void>;
}

/** A failure the user caused (bad data, unknown base model): reported as the job's error_message, never retried. */
export class TrainingInputError extends Error {
  override name = 'TrainingInputError';
}
