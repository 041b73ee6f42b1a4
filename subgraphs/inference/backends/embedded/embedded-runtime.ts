/**
 * What the inference subgraph needs from the embedded model runtime. The real runtime (model-runtime/) is bound
 * by model-runtime-adapter.ts; tests bind deterministic stand-ins through the same interface.
 */
export interface EmbeddedGenerateOptions {
  messages: { role: string; content: string }[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  seed?: number;
  n?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  /** A LoRA adapter over the model (a promoted training checkpoint); absent: the model itself. */
  adapter?: EmbeddedAdapter;
  signal?: AbortSignal;
}

/** A checkpoint's PEFT files; `id` names it for the runtime's per-worker adapter cache. */
export interface EmbeddedAdapter {
  id: string;
  adapterConfigJson: string;
  safetensorsBytes: Uint8Array;
}

export interface EmbeddedTokenEvent {
  /** Which choice (0 ≤ index < n) the text belongs to. */
  index: number;
  text: string;
}

export interface EmbeddedGeneration {
  choices: { text: string; finishReason: 'stop' | 'length'; logprobs?: unknown }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

export interface EmbeddedEmbeddings {
  /** One vector per input, in input order. */
  vectors: number[][];
  usage: { prompt_tokens: number };
}

export interface EmbeddedModelRuntime {
  /** Model the runtime serves out of the box; registered in the catalog at start-up when it is absent. */
  readonly defaultModel?: { id: string; root: string };
  generate(model: string, options: EmbeddedGenerateOptions, onToken?: (event: EmbeddedTokenEvent) => void): Promise<EmbeddedGeneration>;
  /** Embeddings of texts or token-id lists (absent: the runtime's models serve no embeddings). */
  embed?(model: string, inputs: string[] | number[][], signal?: AbortSignal): Promise<EmbeddedEmbeddings>;
  /** Releases threads or other resources at shutdown. */
  close?(): Promise<void>;
}
