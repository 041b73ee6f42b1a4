/**
 * Public entry point of the embedded model runtime: a small Llama-style model
 * that loads Hugging Face checkpoints, generates (with logprobs and streaming),
 * fine-tunes LoRA adapters (SFT) and learns from rewards (RL), all on CPU.
 */
export {
  AdapterBaseMismatchError, AdapterFormatError, ContextLengthExceededError, InvalidRequestError, InvalidTrajectoryError,
  ModelConfigMismatchError, ModelRuntimeError, OperationCancelledError, SafetensorsFormatError,
} from './errors.js';
export { type LlamaConfig, parseLlamaConfig } from './model-config.js';
export { type LlamaModel, type ModelSource, type ProjectionName, PROJECTIONS, initModel, loadModel, parameterCount, saveModel } from './model.js';
export {
  type AdapterFiles, type AdapterOptions, type AdapterSource, type LoraAdapter, createAdapter, loadAdapter, saveAdapter,
} from './lora-adapter.js';
export { type ChatMessage, type ChatRole, type ToolDefinition, countTokens, encodeChatPrompt } from './chat-template.js';
export { SPECIAL_TOKENS, decodeTokens, encodeText } from './tokenizer.js';
export { type EmbedRequest, type EmbedResult, embed } from './embed.js';
export {
  type GenerateRequest, type GenerationChoice, type GenerationResult, type TokenEvent, type TokenListener, type TokenLogprob,
  generate, generateSync,
} from './generate.js';
export { type SftConfig, type SftExample, type SftRequest, type SftStepMetrics, trainSft } from './sft-trainer.js';
export { type RlConfig, type RlRequest, type RlStepMetrics, groupAdvantages, trainRl } from './rl-trainer.js';
export { type OpenAIChoice, type OpenAIMessage, type Trajectory, type TrajectoryGroup, choiceFromGeneration } from './art-trajectories.js';
export { parseSafetensors, serializeSafetensors } from './safetensors.js';
export { DEFAULT_MODEL_DIR } from './default-model.js';
export { GenerationWorkerPool, type GenerationWorkerPoolOptions, runTrainingInWorker } from './worker-pool.js';
export type { AdapterBytes, WorkerEmbedRequest, WorkerGenerateRequest, WorkerTrainingJob } from './worker-protocol.js';
