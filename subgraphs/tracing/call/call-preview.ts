/**
 * One-line previews of a call's inputs and output for the traces list: short text made here, so a page of 100 rows
 * carries a few kilobytes however large the calls are.
 *
 * What a preview shows: for chat shapes, the message a person reads (the last message of `messages`, or the first
 * choice's message of an OpenAI completion); otherwise the string, number and boolean values at any depth, in order,
 * joined with " · ". Object refs (`weave:///…/object/name:digest`) are shown by their name. Whitespace is collapsed
 * to single spaces, and the text is cut at PREVIEW_LENGTH characters with an ellipsis.
 */
export const PREVIEW_LENGTH = 120;

/** Values visited at most, so a huge input (an embedding, a long list) costs no more than a small one. */
const MAX_VISITED = 200;

export function previewOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const parts: string[] = [];
  let length = 0;
  let visited = 0;
  const visit = (node: unknown): void => {
    if (length > PREVIEW_LENGTH || visited >= MAX_VISITED) return;
    visited += 1;
    if (node === null || node === undefined) return;
    if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') {
      const text = typeof node === 'string' ? shortRef(node) : String(node);
      const collapsed = text.replace(/\s+/g, ' ').trim();
      if (collapsed) {
        parts.push(collapsed);
        length += collapsed.length + 3;
      }
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node === 'object') {
      const chat = chatText(node as Record<string, unknown>);
      if (chat !== undefined) return visit(chat);
      for (const [key, item] of Object.entries(node)) if (!key.startsWith('_')) visit(item);
    }
  };
  visit(value);
  if (parts.length === 0) return null;
  const text = parts.join(' · ');
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1).trimEnd()}…` : text;
}

/** The readable part of an OpenAI-style request or answer; undefined when the object is neither. */
function chatText(object: Record<string, unknown>): unknown {
  const messages = object.messages;
  if (Array.isArray(messages) && messages.length > 0) return contentOf(messages[messages.length - 1]);
  const choices = object.choices;
  if (Array.isArray(choices) && choices.length > 0 && isObject(choices[0])) {
    const first = choices[0];
    return isObject(first.message) ? contentOf(first.message) : first.text;
  }
  return undefined;
}

/** A message's content: a string, or the text parts of a list of content parts. */
function contentOf(message: unknown): unknown {
  if (!isObject(message)) return message;
  const content = message.content;
  if (Array.isArray(content)) return content.map((part) => (isObject(part) ? part.text : part));
  return content ?? message.tool_calls;
}

/** `weave:///entity/project/object/name:digest` → `name`; other strings as they are. */
function shortRef(text: string): string {
  if (!text.startsWith('weave:///')) return text;
  const match = /\/(?:object|op|call)\/([^:/]+)(?::[^/]*)?$/.exec(text);
  return match ? match[1]! : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
