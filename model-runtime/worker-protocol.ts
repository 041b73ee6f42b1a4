/** Messages between the main thread and runtime workers (structured-clone friendly: no class instances). */
import type { AdapterFiles } from './lora-adapter.js';
import type { EmbedRequest, EmbedResult } from './embed.js';
import type { GenerateRequest, GenerationResult, TokenEvent } from './generate.js';
import type { ModelSource } from './model.js';
import type { RlConfig, RlStepMetrics } from './rl-trainer.js';
import type { SftConfig, SftExample, SftStepMetrics } from './sft-trainer.js';
import type { TrajectoryGroup } from './art-trajectories.js';
import {
  AdapterBaseMismatchError, AdapterFormatError, ContextLengthExceededError, InvalidRequestError, InvalidTrajectoryError,
  ModelConfigMismatchError, ModelRuntimeError, OperationCancelledError, SafetensorsFormatError,
} from './errors.js';

/** Adapter bytes as stored in the artifact store; `id` lets a worker cache the parsed adapter. */
export interface AdapterBytes {
  id?: string;
  adapterConfigJson: string | Uint8Array;
  safetensorsBytes: Uint8Array;
}

export type WorkerGenerateRequest = Omit<GenerateRequest, 'adapter' | 'signal'> & { adapter?: AdapterBytes | null };

export type WorkerEmbedRequest = Omit<EmbedRequest, 'signal'>;

export type WorkerTrainingJob =
  | { kind: 'sft'; adapter?: AdapterBytes | null; examples: SftExample[]; config?: SftConfig }
  | { kind: 'rl'; adapter?: AdapterBytes | null; trajectoryGroups: TrajectoryGroup[]; config?: RlConfig };

export interface WorkerInit {
  model: ModelSource;
}

export type ToWorker =
  | { type: 'generate'; id: number; request: WorkerGenerateRequest; stream: boolean }
  | { type: 'embed'; id: number; request: WorkerEmbedRequest }
  | { type: 'train'; id: number; job: WorkerTrainingJob }
  | { type: 'cancel'; id: number };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'token'; id: number; event: TokenEvent }
  | { type: 'step'; id: number; metrics: SftStepMetrics | RlStepMetrics }
  | { type: 'generated'; id: number; result: GenerationResult }
  | { type: 'embedded'; id: number; result: EmbedResult }
  | { type: 'trained'; id: number; files: { 'adapter_config.json': Uint8Array; 'adapter_model.safetensors': Uint8Array } }
  | { type: 'error'; id: number; error: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

const ERROR_CLASSES: Record<string, new (message: string) => ModelRuntimeError> = {
  SafetensorsFormatError,
  ModelConfigMismatchError,
  AdapterBaseMismatchError,
  AdapterFormatError,
  InvalidRequestError,
};

/** Rebuild a named error on the main thread so `instanceof` checks keep working across the thread boundary. */
export function deserializeError(e: SerializedError): Error {
  const Known = ERROR_CLASSES[e.name];
  if (Known) return new Known(e.message);
  if (e.name === 'OperationCancelledError') return new OperationCancelledError(e.message.replace(/ was cancelled$/, ''));
  if (e.name === 'ContextLengthExceededError') {
    const m = /has (\d+) tokens .* is (\d+)/.exec(e.message);
    if (m) return new ContextLengthExceededError(Number(m[1]), Number(m[2]));
  }
  if (e.name === 'InvalidTrajectoryError') {
    const m = /^trajectory group (\d+), trajectory (\d+): (.*)$/s.exec(e.message);
    if (m) return new InvalidTrajectoryError(Number(m[1]), Number(m[2]), m[3]);
  }
  const err = new ModelRuntimeError(e.message);
  err.name = e.name;
  return err;
}

export function toAdapterFiles(files: { 'adapter_config.json': Uint8Array; 'adapter_model.safetensors': Uint8Array }): AdapterFiles {
  return { 'adapter_config.json': Buffer.from(files['adapter_config.json']), 'adapter_model.safetensors': Buffer.from(files['adapter_model.safetensors']) };
}
