/** Named errors so callers (GraphQL resolvers, workers) can map failures to clear messages. */

export class ModelRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The bytes are not a valid safetensors file (truncated, bad header, offsets out of range, …). */
export class SafetensorsFormatError extends ModelRuntimeError {}

/** config.json is invalid, or the weights do not have the shapes the config implies. */
export class ModelConfigMismatchError extends ModelRuntimeError {}

/** Prompt plus requested completion do not fit in the model's context window. */
export class ContextLengthExceededError extends ModelRuntimeError {
  constructor(
    readonly promptTokens: number,
    readonly maxContext: number,
  ) {
    super(`prompt has ${promptTokens} tokens but the model's context length is ${maxContext}`);
  }
}

/** An adapter was made for a different base model (shapes, layers or base fingerprint differ). */
export class AdapterBaseMismatchError extends ModelRuntimeError {}

/** The adapter files themselves are malformed (bad adapter_config.json, missing tensors). */
export class AdapterFormatError extends ModelRuntimeError {}

/** A generation or training request has invalid parameters. */
export class InvalidRequestError extends ModelRuntimeError {}

/** RL input that cannot be trained; the message names the group and trajectory. */
export class InvalidTrajectoryError extends ModelRuntimeError {
  constructor(
    readonly groupIndex: number,
    readonly trajectoryIndex: number,
    detail: string,
  ) {
    super(`trajectory group ${groupIndex}, trajectory ${trajectoryIndex}: ${detail}`);
  }
}

/** The caller's AbortSignal fired. */
export class OperationCancelledError extends ModelRuntimeError {
  constructor(what: string) {
    super(`${what} was cancelled`);
  }
}
