import type { ChatMessageRole } from '../../graphql/generated';
import type { PlaygroundDraft, PlaygroundMessage, PlaygroundParameters } from '../inference/playground-draft';
import type { ChatPart, Conversation } from './chat-messages';

const ROLES: Record<string, ChatMessageRole> = { system: 'SYSTEM', developer: 'DEVELOPER', user: 'USER', assistant: 'ASSISTANT', tool: 'TOOL', function: 'FUNCTION' };

const textOf = (parts: readonly ChatPart[]): string | null => {
  const texts = parts.flatMap((part) => (part.kind === 'text' ? [part.text] : []));
  return texts.length > 0 ? texts.join('\n') : null;
};
const numberOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * A traced call's request as the playground's draft: its messages in the graph's ChatMessageInput shape (Anthropic's
 * tool results, which ride in user messages, become tool messages as OpenAI's wire has them), the system prompt apart,
 * the model and the common sampling parameters (OpenAI's or Anthropic's names). The answer is left out: the
 * playground asks for a new one.
 */
export function playgroundDraftOf(conversation: Conversation): PlaygroundDraft {
  let system: string | null = null;
  const messages: PlaygroundMessage[] = [];
  for (const turn of conversation.input) {
    if (turn.role === 'system' && system === null && messages.length === 0) {
      system = textOf(turn.parts);
      continue;
    }
    for (const part of turn.parts) {
      if (part.kind === 'tool_result') messages.push({ role: 'TOOL', content: part.text, toolCallId: part.toolCallId });
    }
    const toolCalls = turn.parts.flatMap((part) => (part.kind === 'tool_call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } }] : []));
    const content = textOf(turn.parts);
    if (turn.role === 'tool' || (content === null && toolCalls.length === 0)) continue;
    messages.push({ role: ROLES[turn.role] ?? 'USER', content, name: turn.name, toolCalls: toolCalls.length > 0 ? toolCalls : null });
  }
  const given = conversation.parameters;
  const parameters: Partial<PlaygroundParameters> = {};
  const maxTokens = numberOf(given.max_tokens) ?? numberOf(given.max_completion_tokens);
  if (maxTokens !== undefined) parameters.maxTokens = maxTokens;
  if (numberOf(given.temperature) !== undefined) parameters.temperature = numberOf(given.temperature)!;
  if (numberOf(given.top_p) !== undefined) parameters.topP = numberOf(given.top_p)!;
  if (numberOf(given.seed) !== undefined) parameters.seed = numberOf(given.seed)!;
  const stop = typeof given.stop === 'string' ? [given.stop] : Array.isArray(given.stop) ? given.stop : (given.stop_sequences as unknown[] | undefined);
  if (Array.isArray(stop)) parameters.stop = stop.filter((item) => typeof item === 'string').join('\n');
  return { model: conversation.model, system, messages, parameters };
}
