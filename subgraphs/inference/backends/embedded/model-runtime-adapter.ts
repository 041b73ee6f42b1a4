import path from 'node:path';
import { DEFAULT_MODEL_DIR, GenerationWorkerPool, type ChatMessage } from '../../../../model-runtime/index.js';
import { NotFoundError } from '../../../../platform/errors.js';
import type { EmbeddedEmbeddings, EmbeddedGenerateOptions, EmbeddedGeneration, EmbeddedModelRuntime, EmbeddedTokenEvent } from './embedded-runtime.js';

/**
 * Binds the project's embedded model runtime (model-runtime/) to the inference subgraph: the shipped base model
 * served from worker threads, so generation never blocks the API's event loop. The pool starts on the first
 * request, so processes that never serve the embedded model pay nothing for it.
 */
export class ModelRuntimeAdapter implements EmbeddedModelRuntime {
  readonly defaultModel: { id: string; root: string };
  private pool?: GenerationWorkerPool;

  constructor(
    private readonly modelDir = DEFAULT_MODEL_DIR,
    private readonly workers = 1,
  ) {
    const name = path.basename(modelDir);
    this.defaultModel = { id: name, root: name };
  }

  async generate(model: string, options: EmbeddedGenerateOptions, onToken?: (event: EmbeddedTokenEvent) => void): Promise<EmbeddedGeneration> {
    const pool = this.poolFor(model);
    const { signal, messages, ...parameters } = options;
    const result = await pool.generate(
      { ...parameters, messages: messages as ChatMessage[], signal },
      onToken ? (event) => onToken({ index: event.choiceIndex, text: event.text }) : undefined,
    );
    return {
      // OpenAI's choice.logprobs shape; entries include the final end-of-turn token (RL clients train on it).
      choices: result.choices.map((choice) => ({
        text: choice.text,
        finishReason: choice.finishReason,
        ...(choice.logprobs ? { logprobs: { content: choice.logprobs } } : {}),
      })),
      usage: { prompt_tokens: result.usage.prompt_tokens, completion_tokens: result.usage.completion_tokens },
    };
  }

  /** Mean-pooled, unit-length final hidden states (model-runtime/embed.ts), computed in the worker threads. */
  async embed(model: string, inputs: string[] | number[][], signal?: AbortSignal): Promise<EmbeddedEmbeddings> {
    const result = await this.poolFor(model).embed({ inputs, signal });
    return { vectors: result.embeddings, usage: { prompt_tokens: result.usage.prompt_tokens } };
  }

  private poolFor(model: string): GenerationWorkerPool {
    if (model !== this.defaultModel.root) throw new NotFoundError(`The embedded runtime has no model "${model}"`, { param: 'model' });
    this.pool ??= new GenerationWorkerPool({ model: this.modelDir, size: this.workers });
    return this.pool;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }
}
