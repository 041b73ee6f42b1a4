/**
 * Text generation: chat prompt → prefill (one batched forward over the prompt) →
 * token-by-token decoding with the KV cache. Stop sequences are matched on bytes,
 * so truncation always falls on a token boundary (tokens are bytes).
 */
import { type ChatMessage, type ToolDefinition, encodeChatPrompt } from './chat-template.js';
import { ContextLengthExceededError, InvalidRequestError, OperationCancelledError } from './errors.js';
import type { LoraAdapter } from './lora-adapter.js';
import type { LlamaModel } from './model.js';
import { SeededRandom } from './rng.js';
import { rowLogprobs, sampleToken, topK } from './sampling.js';
import { SPECIAL_TOKENS, tokenBytes, tokenDisplayString } from './tokenizer.js';
import { type KvCache, cloneKvCache, createKvCache, forward } from './transformer.js';

export interface GenerateRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  adapter?: LoraAdapter | null;
  /** Default 1; 0 means greedy. */
  temperature?: number;
  /** Default 1 (no nucleus filtering). */
  top_p?: number;
  /** Default: as many as fit in the context window. */
  max_tokens?: number;
  stop?: string | string[] | null;
  /** Same seed + same input → same output. Without a seed, sampling is random. */
  seed?: number;
  /** Number of independent completions sharing one prefill. Default 1. */
  n?: number;
  logprobs?: boolean;
  /** 0–20 alternatives per position (implies logprobs). */
  top_logprobs?: number;
  signal?: AbortSignal;
}

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

export interface GenerationChoice {
  index: number;
  text: string;
  finishReason: 'stop' | 'length';
  /** Sampled token ids, including the final <|end|> when the model ended its turn. */
  tokens: number[];
  /** Raw-model (temperature-independent) logprob of each entry of `tokens`, OpenAI style. */
  logprobs?: TokenLogprob[];
}

export interface GenerationResult {
  choices: GenerationChoice[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** Streamed per sampled token; `text` is the newly visible text (empty while a stop sequence might be forming). */
export interface TokenEvent {
  choiceIndex: number;
  token: number;
  logprob: number;
  text: string;
}

export type TokenListener = (event: TokenEvent) => void;

interface NormalisedRequest {
  temperature: number;
  topP: number;
  maxTokens: number;
  stops: number[][];
  seed: number;
  n: number;
  logprobs: boolean;
  topLogprobs: number;
}

function normalise(model: LlamaModel, req: GenerateRequest, promptLength: number): NormalisedRequest {
  const ctx = model.config.maxPositionEmbeddings;
  if (promptLength >= ctx) throw new ContextLengthExceededError(promptLength, ctx);
  const temperature = req.temperature ?? 1;
  const topP = req.top_p ?? 1;
  const n = req.n ?? 1;
  const topLogprobs = req.top_logprobs ?? 0;
  if (!(temperature >= 0) || temperature > 10) throw new InvalidRequestError(`temperature must be in [0, 10], got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new InvalidRequestError(`top_p must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidRequestError(`n must be an integer in [1, 64], got ${n}`);
  if (!Number.isInteger(topLogprobs) || topLogprobs < 0 || topLogprobs > 20) throw new InvalidRequestError('top_logprobs must be an integer in [0, 20]');
  if (req.max_tokens !== undefined && (!Number.isInteger(req.max_tokens) || req.max_tokens < 1)) {
    throw new InvalidRequestError(`max_tokens must be a positive integer, got ${req.max_tokens}`);
  }
  const stopList = req.stop == null ? [] : Array.isArray(req.stop) ? req.stop : [req.stop];
  if (stopList.length > 4 || stopList.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new InvalidRequestError('stop must be up to 4 non-empty strings');
  }
  return {
    temperature,
    topP,
    maxTokens: Math.min(req.max_tokens ?? ctx, ctx - promptLength),
    stops: stopList.map((s) => [...Buffer.from(s, 'utf8')]),
    seed: req.seed ?? Math.floor(Math.random() * 2 ** 31),
    n,
    logprobs: req.logprobs === true || topLogprobs > 0,
    topLogprobs,
  };
}

/** Length of the longest suffix of `bytes` that is a proper prefix of some stop sequence (held back while streaming). */
function pendingStopPrefix(bytes: number[], stops: number[][]): number {
  let longest = 0;
  for (const stop of stops) {
    for (let len = Math.min(stop.length - 1, bytes.length); len > longest; len--) {
      let match = true;
      for (let i = 0; i < len; i++) if (bytes[bytes.length - len + i] !== stop[i]) { match = false; break; }
      if (match) { longest = len; break; }
    }
  }
  return longest;
}

function endsWith(bytes: number[], stop: number[]): boolean {
  if (bytes.length < stop.length) return false;
  for (let i = 0; i < stop.length; i++) if (bytes[bytes.length - stop.length + i] !== stop[i]) return false;
  return true;
}

const allowedToken = (id: number) => id < 256 || id === SPECIAL_TOKENS.end;

/**
 * The generation loop as a generator that yields after every sampled token, so
 * callers decide how to interleave it: the async API yields to the event loop,
 * the worker checks a cancellation flag.
 */
export function* generationSteps(model: LlamaModel, req: GenerateRequest, onToken?: TokenListener): Generator<void, GenerationResult> {
  const prompt = encodeChatPrompt(req.messages, req.tools);
  const opts = normalise(model, req, prompt.length);
  const adapter = req.adapter ?? null;
  const V = model.config.vocabSize;
  const prefillCache = createKvCache(model.config, prompt.length + opts.maxTokens);
  const prefill = forward(model, adapter, prompt, prefillCache).logits;
  const choices: GenerationChoice[] = [];
  let completionTokens = 0;
  for (let c = 0; c < opts.n; c++) {
    const rng = new SeededRandom(opts.seed + c * 1_000_003);
    const cache: KvCache = c === opts.n - 1 ? prefillCache : cloneKvCache(prefillCache);
    const tokens: number[] = [];
    const bytes: number[] = [];
    const entries: TokenLogprob[] = [];
    const decoder = new TextDecoder('utf-8');
    let emittedBytes = 0;
    let text = '';
    let finishReason: 'stop' | 'length' = 'length';
    let logits = prefill;
    const emit = (upTo: number, token: number, logprob: number, final: boolean) => {
      const delta = upTo > emittedBytes ? decoder.decode(Uint8Array.from(bytes.slice(emittedBytes, upTo)), { stream: !final }) : final ? decoder.decode() : '';
      emittedBytes = Math.max(emittedBytes, upTo);
      text += delta;
      onToken?.({ choiceIndex: c, token, logprob, text: delta });
    };
    for (;;) {
      const lp = rowLogprobs(logits, V);
      const token = sampleToken(lp, opts.temperature, opts.topP, rng, allowedToken);
      tokens.push(token);
      if (opts.logprobs) {
        entries.push({
          token: tokenDisplayString(token),
          logprob: lp[token],
          bytes: tokenBytes(token),
          top_logprobs: topK(lp, opts.topLogprobs).map((id) => ({ token: tokenDisplayString(id), logprob: lp[id], bytes: tokenBytes(id) })),
        });
      }
      if (token === SPECIAL_TOKENS.end) {
        finishReason = 'stop';
        emit(bytes.length, token, lp[token], true);
        break;
      }
      bytes.push(token);
      const stop = opts.stops.find((s) => endsWith(bytes, s));
      if (stop) {
        // Drop the stop sequence from the text, the tokens and the logprobs (OpenAI semantics).
        bytes.length -= stop.length;
        tokens.length -= stop.length;
        entries.length = Math.min(entries.length, tokens.length);
        finishReason = 'stop';
        emit(bytes.length, token, lp[token], true);
        break;
      }
      if (tokens.length >= opts.maxTokens) {
        // Out of budget: a partial stop-sequence prefix held back so far is plain text after all.
        emit(bytes.length, token, lp[token], true);
        break;
      }
      emit(bytes.length - pendingStopPrefix(bytes, opts.stops), token, lp[token], false);
      yield;
      logits = forward(model, adapter, [token], cache).logits;
    }
    completionTokens += tokens.length;
    choices.push({ index: c, text, finishReason, tokens, ...(opts.logprobs ? { logprobs: entries } : {}) });
  }
  return { choices, usage: { prompt_tokens: prompt.length, completion_tokens: completionTokens, total_tokens: prompt.length + completionTokens } };
}

/** Run generation to completion synchronously (scripts, evaluation, workers). */
export function generateSync(model: LlamaModel, req: GenerateRequest, onToken?: TokenListener, shouldStop?: () => boolean): GenerationResult {
  const steps = generationSteps(model, req, onToken);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (shouldStop?.()) throw new OperationCancelledError('generation');
  }
}

/**
 * Async generation on the calling thread. Yields to the event loop every few
 * tokens so streaming consumers run and the AbortSignal can fire; for serving,
 * prefer GenerationWorkerPool, which keeps the main thread free entirely.
 */
export async function generate(model: LlamaModel, req: GenerateRequest, onToken?: TokenListener): Promise<GenerationResult> {
  const steps = generationSteps(model, req, onToken);
  let count = 0;
  for (;;) {
    if (req.signal?.aborted) throw new OperationCancelledError('generation');
    const r = steps.next();
    if (r.done) return r.value;
    if (++count % 8 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
