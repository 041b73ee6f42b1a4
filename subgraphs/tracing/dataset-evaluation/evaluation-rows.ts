import type { ValidationIssue } from '../../../platform/errors.js';
import type { PromptMessage } from './evaluated-models.js';
import type { EvaluationSplit } from './dataset-evaluation.schemas.js';

/** One dataset row chosen for the evaluation, with its place in the version and the prompt it makes. */
export interface EvaluationExample {
  /** Its index in the dataset version (0 = the first row). */
  rowIndex: number;
  row: Record<string, unknown>;
  messages: PromptMessage[];
}

/**
 * The rows a split selects, as a half-open index range of the version's `count` rows: the last ceil(f × count) rows
 * for a held-out fraction (rounded to 1e-9 first, so 0.3 × 10 is 3 rows, not 4), or [start_row, end_row) cut to the
 * version. Issues (both forms given, an empty selection) at `["body", "split", …]`.
 */
export function splitRange(split: EvaluationSplit | null | undefined, count: number): { start: number; end: number } | ValidationIssue {
  const fraction = split?.held_out_fraction ?? null;
  const ranged = split?.start_row != null || split?.end_row != null;
  if (fraction !== null && ranged) return issue(['split', 'held_out_fraction'], 'Give held_out_fraction or start_row/end_row, not both');
  let start = 0;
  let end = count;
  if (fraction !== null) start = count - Math.ceil(Math.round(fraction * count * 1e9) / 1e9);
  else if (ranged) {
    start = split?.start_row ?? 0;
    end = Math.min(split?.end_row ?? count, count);
  }
  if (end <= start) {
    const at = fraction !== null ? 'held_out_fraction' : split?.start_row != null ? 'start_row' : 'end_row';
    return issue(['split', at], `The split selects no row of the version (it has ${count} rows)`);
  }
  return { start, end };
}

/**
 * The conversation a row's prompt column makes: text is one user turn; a list of chat messages (`{role, content}`) is
 * the conversation; an object with `messages` (a traced chat call's inputs, the traces list's default `input`
 * column) is its messages. A system prompt goes first. Null when the column holds none of these.
 */
export function promptOf(row: Record<string, unknown>, column: string, systemPrompt: string | null): PromptMessage[] | null {
  const value = row[column];
  const conversation = typeof value === 'string' ? [{ role: 'user' as const, content: value }] : messagesOf(isObject(value) ? value.messages : value);
  if (!conversation || conversation.length === 0 || conversation.every((message) => message.content.trim() === '')) return null;
  return systemPrompt ? [{ role: 'system', content: systemPrompt }, ...conversation] : conversation;
}

const ROLES = new Set(['system', 'user', 'assistant']);

function messagesOf(value: unknown): PromptMessage[] | null {
  if (!Array.isArray(value)) return null;
  const messages: PromptMessage[] = [];
  for (const item of value) {
    if (!isObject(item) || typeof item.role !== 'string' || !ROLES.has(item.role)) return null;
    const content = textOfContent(item.content);
    if (content === null) return null;
    messages.push({ role: item.role as PromptMessage['role'], content });
  }
  return messages;
}

/** A message's text: a string, or the text parts of a content list joined. */
function textOfContent(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.filter((part) => isObject(part) && part.type === 'text' && typeof part.text === 'string').map((part) => (part as { text: string }).text);
  return texts.length > 0 ? texts.join('') : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function issue(path: (string | number)[], msg: string): ValidationIssue {
  return { loc: ['body', ...path], msg, type: 'value_error' };
}
