/**
 * Text embeddings from the base model: each input runs through the transformer once (no generation), and its
 * vector is the mean of the final (normalised) hidden states over its tokens, scaled to unit length — so a dot
 * product of two embeddings is their cosine similarity. Inputs are text (byte-tokenized after <|bos|>) or token ids.
 */
import { ContextLengthExceededError, InvalidRequestError, OperationCancelledError } from './errors.js';
import type { LlamaModel } from './model.js';
import { SPECIAL_TOKENS, encodeText } from './tokenizer.js';
import { createKvCache, forward } from './transformer.js';

export interface EmbedRequest {
  /** Each input: a text, or the token ids to embed as they are. */
  inputs: (string | number[])[];
  signal?: AbortSignal;
}

export interface EmbedResult {
  /** One unit-length vector per input (hiddenSize values), in input order. */
  embeddings: number[][];
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The tokens an input is embedded from (what counts as its prompt tokens). */
export function embeddingTokens(model: LlamaModel, input: string | number[], index: number): number[] {
  if (typeof input === 'string') return [SPECIAL_TOKENS.bos, ...encodeText(input)];
  if (input.length === 0) throw new InvalidRequestError(`input ${index} has no tokens`);
  const vocab = model.config.vocabSize;
  const bad = input.find((id) => !Number.isInteger(id) || id < 0 || id >= vocab);
  if (bad !== undefined) throw new InvalidRequestError(`input ${index} has token id ${bad}, outside the vocabulary (0 to ${vocab - 1})`);
  return input;
}

export async function embed(model: LlamaModel, request: EmbedRequest): Promise<EmbedResult> {
  const { inputs, signal } = request;
  const ctx = model.config.maxPositionEmbeddings;
  const tokenLists = inputs.map((input, index) => embeddingTokens(model, input, index));
  for (const tokens of tokenLists) if (tokens.length > ctx) throw new ContextLengthExceededError(tokens.length, ctx);
  const d = model.config.hiddenSize;
  const embeddings: number[][] = [];
  let promptTokens = 0;
  for (const tokens of tokenLists) {
    if (signal?.aborted) throw new OperationCancelledError('embedding');
    const T = tokens.length;
    // Every row's final hidden state is wanted: the trace keeps them (normalised by the final RMSNorm).
    const rows = Int32Array.from({ length: T }, (_, t) => t);
    const { trace } = forward(model, null, tokens, createKvCache(model.config, T), { rows, trace: true });
    const hidden = trace!.xnRows;
    const vector = new Float64Array(d);
    for (let t = 0; t < T; t++) for (let j = 0; j < d; j++) vector[j] += hidden[t * d + j];
    let norm = 0;
    for (let j = 0; j < d; j++) norm += vector[j] * vector[j];
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    embeddings.push(Array.from(vector, (value) => value * scale));
    promptTokens += T;
    // Let a cancel message reach the worker between inputs.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { embeddings, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } };
}
