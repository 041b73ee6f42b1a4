/**
 * Chat template: <|bos|> then, per message, a role token, the content bytes and
 * <|end|>. The generation prompt ends with <|assistant|>; the model ends its turn
 * by emitting <|end|>.
 */
import { InvalidRequestError } from './errors.js';
import { SPECIAL_TOKENS, encodeText } from './tokenizer.js';

/** `developer` is OpenAI's newer name for `system`: it is formatted as a system turn. */
export type ChatRole = 'system' | 'developer' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** Tool definitions are rendered into the system turn so SFT examples that carry them still train. */
export type ToolDefinition = Record<string, unknown>;

const ROLE_TOKENS: Record<ChatRole, number> = {
  system: SPECIAL_TOKENS.system,
  developer: SPECIAL_TOKENS.system,
  user: SPECIAL_TOKENS.user,
  assistant: SPECIAL_TOKENS.assistant,
};

export function validateMessages(messages: unknown): asserts messages is ChatMessage[] {
  if (!Array.isArray(messages)) throw new InvalidRequestError('messages must be an array');
  messages.forEach((m, i) => {
    if (!m || typeof m !== 'object' || !Object.hasOwn(ROLE_TOKENS, m.role)) {
      throw new InvalidRequestError(`messages[${i}].role must be system, developer, user or assistant`);
    }
    if (typeof m.content !== 'string') throw new InvalidRequestError(`messages[${i}].content must be a string`);
  });
}

export function encodeMessage(message: ChatMessage): number[] {
  return [ROLE_TOKENS[message.role], ...encodeText(message.content), SPECIAL_TOKENS.end];
}

function withTools(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): readonly ChatMessage[] {
  if (!tools || tools.length === 0) return messages;
  const toolText = `Tools: ${JSON.stringify(tools)}`;
  if (messages[0]?.role === 'system' || messages[0]?.role === 'developer') {
    return [{ role: 'system', content: `${messages[0].content}\n${toolText}` }, ...messages.slice(1)];
  }
  return [{ role: 'system', content: toolText }, ...messages];
}

/** Prompt tokens for generation: the conversation followed by the assistant role token. */
export function encodeChatPrompt(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number[] {
  validateMessages(messages as unknown);
  const tokens: number[] = [SPECIAL_TOKENS.bos];
  for (const m of withTools(messages, tools)) tokens.push(...encodeMessage(m));
  tokens.push(SPECIAL_TOKENS.assistant);
  return tokens;
}

/**
 * A whole conversation as one sequence, with a mask that is 1 on the tokens of
 * assistant turns (content and <|end|>) — the only tokens SFT trains on.
 */
export function encodeChatForTraining(
  messages: readonly ChatMessage[],
  tools?: readonly ToolDefinition[],
): { tokens: number[]; trainMask: Uint8Array } {
  validateMessages(messages as unknown);
  const tokens: number[] = [SPECIAL_TOKENS.bos];
  const mask: number[] = [0];
  for (const m of withTools(messages, tools)) {
    const encoded = encodeMessage(m);
    tokens.push(...encoded);
    // The role token itself is given, not predicted; everything after it in an assistant turn is trained.
    encoded.forEach((_, i) => mask.push(m.role === 'assistant' && i > 0 ? 1 : 0));
  }
  return { tokens, trainMask: Uint8Array.from(mask) };
}

export function countTokens(messages: readonly ChatMessage[], tools?: readonly ToolDefinition[]): number {
  return encodeChatPrompt(messages, tools).length;
}
