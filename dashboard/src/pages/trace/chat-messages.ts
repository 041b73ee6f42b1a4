/**
 * A traced chat call's inputs and output as one conversation, whichever client recorded it: OpenAI's chat
 * completions (`messages`, `choices[].message` with `tool_calls`, `tool` messages), Anthropic's messages (`system`,
 * content blocks with `tool_use` / `tool_result`, the Message output), and plain `{role, content}` messages. Anything
 * else is not a conversation (null) and the page shows the JSON as it is.
 */

export type ChatPart =
  | { kind: 'text'; text: string }
  | { kind: 'tool_call'; id: string | null; name: string; arguments: string }
  | { kind: 'tool_result'; toolCallId: string | null; text: string }
  | { kind: 'image'; source: string }
  | { kind: 'other'; value: unknown };

export interface ChatTurn {
  role: string;
  /** `name` of the message, or the tool that answered. */
  name: string | null;
  parts: ChatPart[];
}

export interface Conversation {
  /** The messages sent (a system prompt first when the request had one apart). */
  input: ChatTurn[];
  /** The answer: one turn per choice; empty while the call runs. */
  output: ChatTurn[];
  /** The request's model and sampling parameters, for the playground. */
  model: string | null;
  parameters: Record<string, unknown>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isMessage = (value: unknown): value is Json => isObject(value) && typeof value.role === 'string' && ('content' in value || 'tool_calls' in value);
const isMessageList = (value: unknown): value is Json[] => Array.isArray(value) && value.length > 0 && value.every(isMessage);

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** Content blocks (OpenAI's parts, Anthropic's blocks) or a plain string, as parts. */
function partsOf(content: unknown): ChatPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [{ kind: 'other', value: content }];
  return content.map((block): ChatPart => {
    if (typeof block === 'string') return { kind: 'text', text: block };
    if (!isObject(block)) return { kind: 'other', value: block };
    switch (block.type) {
      case 'text':
      case 'input_text':
      case 'output_text':
        return { kind: 'text', text: text(block.text) };
      case 'tool_use':
        return { kind: 'tool_call', id: typeof block.id === 'string' ? block.id : null, name: String(block.name ?? 'tool'), arguments: text(block.input ?? {}) };
      case 'tool_result':
        return {
          kind: 'tool_result',
          toolCallId: typeof block.tool_use_id === 'string' ? block.tool_use_id : null,
          text: partsOf(block.content).map((part) => (part.kind === 'text' ? part.text : text(part))).join('\n'),
        };
      case 'image_url':
        return { kind: 'image', source: isObject(block.image_url) ? String(block.image_url.url ?? '') : String(block.image_url ?? '') };
      case 'image':
        return { kind: 'image', source: isObject(block.source) ? String(block.source.url ?? block.source.media_type ?? 'image') : 'image' };
      default:
        return { kind: 'other', value: block };
    }
  });
}

/** OpenAI's `tool_calls` of an assistant message. */
function toolCallsOf(message: Json): ChatPart[] {
  if (!Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.filter(isObject).map((call): ChatPart => {
    const fn = isObject(call.function) ? call.function : {};
    return { kind: 'tool_call', id: typeof call.id === 'string' ? call.id : null, name: String(fn.name ?? 'tool'), arguments: text(fn.arguments ?? '') };
  });
}

function turnOf(message: Json): ChatTurn {
  const parts = partsOf(message.content);
  // An OpenAI tool message answers one tool call: its content is the result.
  const content: ChatPart[] =
    message.role === 'tool' && typeof message.tool_call_id === 'string'
      ? [{ kind: 'tool_result', toolCallId: message.tool_call_id, text: parts.map((part) => (part.kind === 'text' ? part.text : text(part))).join('\n') }]
      : parts;
  return { role: message.role as string, name: typeof message.name === 'string' ? message.name : null, parts: [...content, ...toolCallsOf(message)] };
}

/** The messages of a call's inputs: `inputs.messages`, or the one input that is a list of messages. */
function inputMessagesOf(inputs: Json): Json[] | null {
  if (isMessageList(inputs.messages)) return inputs.messages;
  const lists = Object.values(inputs).filter(isMessageList);
  return lists.length === 1 ? lists[0]! : null;
}

/** The answer turns of an output in any of the shapes above. */
function outputTurnsOf(output: unknown): ChatTurn[] {
  if (output === null || output === undefined) return [];
  if (isObject(output)) {
    if (Array.isArray(output.choices)) {
      return output.choices.filter(isObject).flatMap((choice) => (isMessage(choice.message) ? [turnOf(choice.message)] : []));
    }
    if (isMessage(output.message)) return [turnOf(output.message)];
    // Anthropic's Message (`type: "message"`), whose role some clients leave out: its content blocks.
    if (output.type === 'message' && Array.isArray(output.content)) return [{ role: String(output.role ?? 'assistant'), name: null, parts: partsOf(output.content) }];
    if (isMessage(output)) return [turnOf(output)];
  }
  if (isMessageList(output)) return output.map(turnOf);
  return [{ role: 'assistant', name: null, parts: typeof output === 'string' ? partsOf(output) : [{ kind: 'other', value: output }] }];
}

const NOT_PARAMETERS = new Set(['messages', 'system', 'model', 'self', 'stream', 'stream_options']);

export function conversationOf(inputs: unknown, output: unknown): Conversation | null {
  if (!isObject(inputs)) return null;
  const messages = inputMessagesOf(inputs);
  if (!messages) return null;
  const system = partsOf(Array.isArray(inputs.system) || typeof inputs.system === 'string' ? inputs.system : null);
  const input = [...(system.length > 0 ? [{ role: 'system', name: null, parts: system }] : []), ...messages.map(turnOf)];
  const parameters = Object.fromEntries(Object.entries(inputs).filter(([key, value]) => !NOT_PARAMETERS.has(key) && (typeof value === 'number' || typeof value === 'string' || Array.isArray(value))));
  return { input, output: outputTurnsOf(output), model: typeof inputs.model === 'string' ? inputs.model : null, parameters };
}
