import {
  DEFAULT_MODEL_DIR,
  InvalidTrajectoryError,
  ModelRuntimeError,
  OperationCancelledError,
  type TrajectoryGroup as RuntimeTrajectoryGroup,
  type SftExample,
} from '../../../model-runtime/index.js';
import { WarmTrainerPool } from './warm-trainer-pool.js';
import { TrainingInputError, type AdapterFiles, type StepMetrics, type TrainRequest, type TrainerBackend } from './trainer-backend.js';

/** Base models the embedded runtime can train (name → model directory). */
export const EMBEDDED_BASE_MODELS: Record<string, string> = { 'trellis-tiny': DEFAULT_MODEL_DIR };

/**
 * Trains with the embedded model runtime on warm worker threads (WarmTrainerPool: `concurrency` threads per base
 * model, reused across jobs), so the API thread never computes gradients and small jobs do not pay for loading the
 * model; an aborted signal terminates the job's thread.
 */
export class EmbeddedTrainer implements TrainerBackend {
  readonly name = 'embedded';
  private readonly pools = new Map<string, WarmTrainerPool>();

  constructor(private readonly threads: number) {}

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }

  async train(request: TrainRequest, onStep: (metrics: StepMetrics) => void): Promise<{ files: AdapterFiles; step: number }> {
    const modelDir = EMBEDDED_BASE_MODELS[request.baseModel];
    if (!modelDir) {
      throw new TrainingInputError(
        `Base model "${request.baseModel}" is not available to the embedded trainer (available: ${Object.keys(EMBEDDED_BASE_MODELS).join(', ')})`,
      );
    }
    const adapter = request.adapter
      ? {
          id: request.adapter.id,
          adapterConfigJson: request.adapter.files['adapter_config.json'],
          safetensorsBytes: request.adapter.files['adapter_model.safetensors'],
        }
      : null;
    const { work } = request;
    const job =
      work.kind === 'RL'
        ? { kind: 'rl' as const, adapter, trajectoryGroups: work.trajectoryGroups as unknown as RuntimeTrajectoryGroup[], config: work.config }
        : { kind: 'sft' as const, adapter, examples: work.examples as unknown as SftExample[], config: work.config };
    try {
      let pool = this.pools.get(modelDir);
      if (!pool) this.pools.set(modelDir, (pool = new WarmTrainerPool(modelDir, this.threads)));
      const files = await pool.train(
        job,
        (metrics) => onStep(numericOnly(metrics as unknown as Record<string, unknown>)),
        request.signal,
      );
      const result: AdapterFiles = {
        'adapter_config.json': Buffer.from(files['adapter_config.json']),
        'adapter_model.safetensors': Buffer.from(files['adapter_model.safetensors']),
      };
      return { files: result, step: adapterStep(result) };
    } catch (error) {
      if (error instanceof OperationCancelledError) throw error;
      // The runtime rejects bad data before training (e.g. logprobs that do not spell the content): the user's fault.
      if (error instanceof InvalidTrajectoryError || (error instanceof ModelRuntimeError && !(error instanceof OperationCancelledError))) {
        const message = (error as Error).message;
        throw new TrainingInputError(work.kind === 'SFT' ? withLineNumbers(message, work.lineNumbers) : message);
      }
      throw error;
    }
  }
}

/** The runtime names SFT examples by index (`examples[3]: …`); the user knows them as lines of train.jsonl. */
function withLineNumbers(message: string, lineNumbers: number[]): string {
  return message.replace(/examples\[(\d+)\]/g, (text, index: string) => {
    const line = lineNumbers[Number(index)];
    return line === undefined ? text : `train.jsonl line ${line}`;
  });
}

function numericOnly(metrics: Record<string, unknown>): StepMetrics {
  return Object.fromEntries(Object.entries(metrics).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1])));
}

/** The step the runtime recorded in the adapter (`trellis_step`), counting from the adapter it continued. */
export function adapterStep(files: AdapterFiles): number {
  const config = JSON.parse(files['adapter_config.json'].toString('utf8')) as { trellis_step?: unknown };
  return typeof config.trellis_step === 'number' ? config.trellis_step : 0;
}
