import { TrainingInputError } from '../trainer/trainer-backend.js';
import { TRAIN_FILE } from './training-data-url.js';

/** One SFT example in the OpenAI chat shape ART writes: `{"messages": [...], "tools"?: [...]}` per line. */
export interface SftExample {
  messages: { role: string; content: string }[];
  tools?: unknown[];
}

export interface ParsedDataset {
  examples: SftExample[];
  /** 1-based line of train.jsonl each example came from, so later errors can name the line. */
  lineNumbers: number[];
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const MAX_LISTED = 20;

/**
 * Parses train.jsonl. Blank lines are skipped; every other line must be a JSON object with a non-empty `messages`
 * array of `{role, content}` (content text, or OpenAI text parts, which are joined) that includes an assistant turn
 * to learn from. All bad lines are reported at once, by line number, as the job's error (never retried).
 */
export function parseTrainJsonl(content: Buffer): ParsedDataset {
  const lines = content.toString('utf8').split('\n');
  const examples: SftExample[] = [];
  const lineNumbers: number[] = [];
  const problems: string[] = [];
  lines.forEach((raw, index) => {
    const text = raw.trim();
    if (text === '') return;
    const line = index + 1;
    const parsed = parseLine(text);
    if (typeof parsed === 'string') problems.push(`line ${line}: ${parsed}`);
    else {
      examples.push(parsed);
      lineNumbers.push(line);
    }
  });
  if (problems.length > 0) {
    const listed = problems.slice(0, MAX_LISTED).join('; ');
    const more = problems.length > MAX_LISTED ? `; and ${problems.length - MAX_LISTED} more` : '';
    throw new TrainingInputError(`${TRAIN_FILE} has ${problems.length} invalid line${problems.length === 1 ? '' : 's'}: ${listed}${more}`);
  }
  if (examples.length === 0) throw new TrainingInputError(`${TRAIN_FILE} has no examples`);
  return { examples, lineNumbers };
}

/** The example, or what is wrong with the line. */
function parseLine(text: string): SftExample | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `invalid JSON (${(error as Error).message})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const { messages, tools } = value as { messages?: unknown; tools?: unknown };
  if (messages === undefined) return 'missing "messages"';
  if (!Array.isArray(messages) || messages.length === 0) return '"messages" must be a non-empty array';
  if (tools !== undefined && tools !== null && !Array.isArray(tools)) return '"tools" must be an array';
  const normalised: SftExample['messages'] = [];
  for (const [i, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null) return `messages[${i}] is not an object`;
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (typeof role !== 'string' || !ROLES.has(role)) return `messages[${i}].role must be one of ${[...ROLES].join(', ')}`;
    const textContent = textOf(content);
    if (textContent === undefined) return `messages[${i}].content must be a string or text parts`;
    normalised.push({ role: role === 'developer' ? 'system' : role, content: textContent });
  }
  if (!normalised.some((message) => message.role === 'assistant')) return 'no assistant turn to train on';
  return Array.isArray(tools) && tools.length > 0 ? { messages: normalised, tools } : { messages: normalised };
}

function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null || typeof (part as { text?: unknown }).text !== 'string') return undefined;
    parts.push((part as { text: string }).text);
  }
  return parts.join('');
}
