/**
 * OpenPipe ART wire shapes and their conversion into token sequences for RL.
 * messages_and_choices mixes OpenAI messages (they have `role`) with OpenAI
 * Choice objects (no top-level role); Choices are the trainable assistant turns,
 * and their logprobs are the ones recorded when they were sampled.
 */
import { type ChatMessage, encodeMessage } from './chat-template.js';
import { InvalidTrajectoryError } from './errors.js';
import { SPECIAL_TOKENS, encodeText, tokenIdFromLogprobEntry } from './tokenizer.js';

export interface OpenAIMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  name?: string;
  tool_calls?: unknown;
  tool_call_id?: string;
}

export interface OpenAIChoice {
  index?: number;
  finish_reason?: string | null;
  message: { role: 'assistant'; content: string | null; tool_calls?: unknown; refusal?: string | null };
  logprobs?: { content?: Array<{ token: string; logprob: number; bytes?: number[] | null }> | null } | null;
}

export interface Trajectory {
  messages_and_choices: Array<OpenAIMessage | OpenAIChoice>;
  reward: number;
  metrics?: Record<string, number | boolean>;
  metadata?: Record<string, unknown>;
}

export interface TrajectoryGroup {
  trajectories: Trajectory[];
}

/** A trajectory flattened to tokens; `trainable` marks Choice tokens, `oldLogprobs` is NaN where unknown. */
export interface TokenisedTrajectory {
  groupIndex: number;
  trajectoryIndex: number;
  reward: number;
  tokens: number[];
  trainable: Uint8Array;
  oldLogprobs: Float64Array;
}

function messageText(content: OpenAIMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('');
  throw new TypeError('content must be a string, an array of text parts, or null');
}

export function tokeniseTrajectory(
  trajectory: Trajectory,
  groupIndex: number,
  trajectoryIndex: number,
  allowWithoutLogprobs: boolean,
  maxContext: number,
): TokenisedTrajectory {
  const fail = (detail: string): never => { throw new InvalidTrajectoryError(groupIndex, trajectoryIndex, detail); };
  if (!trajectory || !Array.isArray(trajectory.messages_and_choices)) fail('messages_and_choices must be an array');
  if (typeof trajectory.reward !== 'number' || !Number.isFinite(trajectory.reward)) fail(`reward must be a finite number, got ${JSON.stringify(trajectory.reward)}`);
  const tokens: number[] = [SPECIAL_TOKENS.bos];
  const trainable: number[] = [0];
  const old: number[] = [NaN];
  const push = (ids: number[], train: boolean, logprobs?: number[]) => {
    ids.forEach((id, i) => {
      tokens.push(id);
      trainable.push(train ? 1 : 0);
      old.push(logprobs ? logprobs[i] : NaN);
    });
  };
  let choices = 0;
  trajectory.messages_and_choices.forEach((item, k) => {
    if (item && typeof item === 'object' && 'role' in item) {
      const role = (item as OpenAIMessage).role;
      if (role !== 'system' && role !== 'user' && role !== 'assistant') {
        fail(`messages_and_choices[${k}] has role "${role}"; the tiny model's template knows system, user and assistant`);
      }
      let content = '';
      try {
        content = messageText((item as OpenAIMessage).content);
      } catch (err) {
        fail(`messages_and_choices[${k}]: ${(err as Error).message}`);
      }
      push(encodeMessage({ role, content } as ChatMessage), false);
      return;
    }
    const choice = item as OpenAIChoice;
    if (!choice || typeof choice !== 'object' || !choice.message || typeof choice.message !== 'object') {
      fail(`messages_and_choices[${k}] is neither a message (with role) nor a Choice (with message)`);
    }
    choices++;
    const content = messageText(choice.message.content);
    push([SPECIAL_TOKENS.assistant], false);
    const entries = choice.logprobs?.content;
    if (!entries || entries.length === 0) {
      if (!allowWithoutLogprobs) {
        fail(`Choice at messages_and_choices[${k}] has no logprobs; request logprobs when sampling, or set allow_training_without_logprobs`);
      }
      // Unknown sampling logprobs: the trainer substitutes the current policy's (ratio 1).
      push([...encodeText(content), SPECIAL_TOKENS.end], true);
      return;
    }
    const ids: number[] = [];
    const lps: number[] = [];
    entries.forEach((e, j) => {
      const id = e && typeof e.token === 'string' ? tokenIdFromLogprobEntry(e.token, e.bytes) : undefined;
      if (id === undefined) fail(`Choice at messages_and_choices[${k}]: logprobs.content[${j}] token ${JSON.stringify(e?.token)} is not a token of this model`);
      if (typeof e.logprob !== 'number' || !Number.isFinite(e.logprob) || e.logprob > 1e-6) fail(`Choice at messages_and_choices[${k}]: logprobs.content[${j}].logprob must be a finite number ≤ 0`);
      ids.push(id!);
      lps.push(e.logprob);
    });
    const spelled = Buffer.from(ids.filter((id) => id < 256)).toString('utf8');
    if (spelled !== content) fail(`Choice at messages_and_choices[${k}]: its logprobs spell ${JSON.stringify(spelled.slice(0, 40))}, not the message content`);
    push(ids, true, lps);
    // A turn cut by max_tokens or a stop sequence still needs its end marker for whatever follows (not trained).
    if (ids[ids.length - 1] !== SPECIAL_TOKENS.end) push([SPECIAL_TOKENS.end], false);
  });
  if (choices === 0) fail('has no Choice (nothing to train)');
  if (tokens.length > maxContext) fail(`is ${tokens.length} tokens long, more than the context length ${maxContext}`);
  return { groupIndex, trajectoryIndex, reward: trajectory.reward, tokens, trainable: Uint8Array.from(trainable), oldLogprobs: Float64Array.from(old) };
}

/** A Choice from a generate() result, in the shape ART clients send back. */
export function choiceFromGeneration(choice: { index: number; text: string; finishReason: string; logprobs?: Array<{ token: string; logprob: number; bytes: number[] }> }): OpenAIChoice {
  return {
    index: choice.index,
    finish_reason: choice.finishReason,
    message: { role: 'assistant', content: choice.text },
    logprobs: choice.logprobs ? { content: choice.logprobs.map(({ token, logprob, bytes }) => ({ token, logprob, bytes })) } : null,
  };
}
