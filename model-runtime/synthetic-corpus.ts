/**
 * Synthetic instruction corpus, produced entirely by code: arithmetic, counting,
 * string reversal, formatting and short templated Q&A. Every task has a
 * deterministic "key" per example; keys that hash into the held-out bucket are
 * never used for training, so held-out accuracy measures generalisation.
 */
import type { ChatMessage } from './chat-template.js';
import { SeededRandom } from './rng.js';

export interface TaskExample {
  task: string;
  key: string;
  messages: ChatMessage[];
  answer: string;
}

export interface Task {
  name: string;
  sample(rng: SeededRandom): Omit<TaskExample, 'task'>;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'to', 'sa', 'vi', 'de', 'po', 'ba', 'fu', 'go', 'hi', 'je', 'zu', 'wa', 'xe', 'qi', 'yo'];

function word(rng: SeededRandom, minLen = 3, maxLen = 7): string {
  // Mix pronounceable and random-letter words so the model cannot rely on a word list.
  if (rng.next() < 0.5) {
    let w = '';
    while (w.length < minLen) w += rng.pick(SYLLABLES);
    return w.slice(0, maxLen);
  }
  const n = minLen + rng.int(maxLen - minLen + 1);
  let w = '';
  for (let i = 0; i < n; i++) w += LETTERS[rng.int(26)];
  return w;
}

const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

const CAPITALS: [string, string][] = [
  ['France', 'Paris'], ['Germany', 'Berlin'], ['Italy', 'Rome'], ['Spain', 'Madrid'], ['Japan', 'Tokyo'],
  ['Egypt', 'Cairo'], ['Peru', 'Lima'], ['Kenya', 'Nairobi'], ['Canada', 'Ottawa'], ['Norway', 'Oslo'],
  ['Greece', 'Athens'], ['Poland', 'Warsaw'], ['Chile', 'Santiago'], ['India', 'New Delhi'], ['China', 'Beijing'],
  ['Cuba', 'Havana'], ['Ireland', 'Dublin'], ['Austria', 'Vienna'], ['Portugal', 'Lisbon'], ['Sweden', 'Stockholm'],
];
const OPPOSITES: [string, string][] = [
  ['hot', 'cold'], ['big', 'small'], ['up', 'down'], ['fast', 'slow'], ['day', 'night'], ['old', 'new'],
  ['open', 'closed'], ['light', 'dark'], ['early', 'late'], ['happy', 'sad'], ['left', 'right'], ['full', 'empty'],
];
const CAPITAL_TEMPLATES = ['What is the capital of {x}?', 'Name the capital city of {x}.', 'Capital of {x}?', '{x} has which capital?'];
const OPPOSITE_TEMPLATES = ['What is the opposite of {x}?', 'Opposite of {x}?', 'Give the antonym of "{x}".'];

export const BASE_TASKS: Task[] = [
  {
    name: 'addition',
    sample(rng) {
      const a = rng.int(100), b = rng.int(100);
      const prompt = rng.pick(['What is {a} + {b}?', '{a} + {b} =', 'Add {a} and {b}.', 'Compute {a}+{b}.'])
        .replace('{a}', String(a)).replace('{b}', String(b));
      return { key: `${a}+${b}`, messages: user(prompt), answer: String(a + b) };
    },
  },
  {
    name: 'subtraction',
    sample(rng) {
      const a = rng.int(100), b = rng.int(a + 1);
      const prompt = rng.pick(['What is {a} - {b}?', '{a} - {b} =', 'Subtract {b} from {a}.'])
        .replace('{a}', String(a)).replace('{b}', String(b));
      return { key: `${a}-${b}`, messages: user(prompt), answer: String(a - b) };
    },
  },
  {
    name: 'multiplication',
    sample(rng) {
      const a = rng.int(13), b = rng.int(13);
      const prompt = rng.pick(['What is {a} * {b}?', '{a} x {b} =', 'Multiply {a} by {b}.']).replace('{a}', String(a)).replace('{b}', String(b));
      return { key: `${a}*${b}`, messages: user(prompt), answer: String(a * b) };
    },
  },
  {
    name: 'count-letters',
    sample(rng) {
      const w = word(rng, 2, 9);
      const prompt = rng.pick(['How many letters are in "{w}"?', 'Count the letters in {w}.', 'Length of "{w}"?']).replace('{w}', w);
      return { key: `len:${w}`, messages: user(prompt), answer: String(w.length) };
    },
  },
  {
    name: 'count-sequence',
    sample(rng) {
      const a = rng.int(20), n = 2 + rng.int(5);
      const seq = Array.from({ length: n }, (_, i) => String(a + i));
      return { key: `seq:${a}:${n}`, messages: user(`Count from ${a} to ${a + n - 1}.`), answer: seq.join(', ') };
    },
  },
  {
    name: 'reverse',
    sample(rng) {
      const w = word(rng, 3, 8);
      const prompt = rng.pick(['Reverse: {w}', 'Reverse the string "{w}".', 'Write {w} backwards.']).replace('{w}', w);
      return { key: `rev:${w}`, messages: user(prompt), answer: [...w].reverse().join('') };
    },
  },
  {
    name: 'uppercase',
    sample(rng) {
      const text = rng.next() < 0.5 ? word(rng) : `${word(rng, 2, 5)} ${word(rng, 2, 5)}`;
      const prompt = rng.pick(['Uppercase: {w}', 'Convert to upper case: {w}', 'Make "{w}" uppercase.']).replace('{w}', text);
      return { key: `up:${text}`, messages: user(prompt), answer: text.toUpperCase() };
    },
  },
  {
    name: 'brackets',
    sample(rng) {
      const w = word(rng);
      return { key: `br:${w}`, messages: user(rng.pick(['Put in brackets: {w}', 'Wrap {w} in square brackets.']).replace('{w}', w)), answer: `[${w}]` };
    },
  },
  {
    name: 'list-format',
    sample(rng) {
      const items = Array.from({ length: 2 + rng.int(3) }, () => word(rng, 2, 5));
      return { key: `list:${items.join(',')}`, messages: user(`Make a bulleted list: ${items.join(', ')}`), answer: items.map((i) => `- ${i}`).join('\n') };
    },
  },
  {
    name: 'capital-qa',
    sample(rng) {
      const [country, city] = rng.pick(CAPITALS);
      const template = rng.pick(CAPITAL_TEMPLATES);
      return { key: `cap:${country}:${template}`, messages: user(template.replace('{x}', country)), answer: city };
    },
  },
  {
    name: 'opposite-qa',
    sample(rng) {
      const [a, b] = rng.pick(OPPOSITES);
      const [x, y] = rng.next() < 0.5 ? [a, b] : [b, a];
      const template = rng.pick(OPPOSITE_TEMPLATES);
      return { key: `opp:${x}:${template}`, messages: user(template.replace('{x}', x)), answer: y };
    },
  },
];

/** FNV-1a; used to put ~1 in 8 keys in the held-out bucket. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function isHeldOut(key: string): boolean {
  return fnv1a(key) % 8 === 0;
}

const SYSTEM_PROMPTS = ['You are a helpful assistant.', 'Answer briefly.', 'You are Trellis Tiny.'];

/** Draw examples from `tasks`, only from the chosen split; a system prompt is added to some of them. */
export function sampleExamples(tasks: readonly Task[], count: number, seed: number, split: 'train' | 'heldout'): TaskExample[] {
  const rng = new SeededRandom(seed);
  const out: TaskExample[] = [];
  let guard = 0;
  while (out.length < count && guard++ < count * 200) {
    const task = tasks[out.length % tasks.length];
    const ex = task.sample(rng);
    if (isHeldOut(ex.key) !== (split === 'heldout')) continue;
    const messages: ChatMessage[] = rng.next() < 0.25 ? [{ role: 'system', content: rng.pick(SYSTEM_PROMPTS) }, ...ex.messages] : ex.messages;
    out.push({ task: task.name, key: ex.key, messages, answer: ex.answer });
  }
  return out;
}

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/**
 * The SFT demonstration task, absent from the base corpus: the letter count
 * spelled as a word. The base model can count letters but answers in digits.
 */
export const COUNT_IN_WORDS_TASK: Task = {
  name: 'count-in-words',
  sample(rng) {
    const w = word(rng, 2, 9);
    return { key: `words:${w}`, messages: user(`How many letters are in "${w}"? Answer in words.`), answer: NUMBER_WORDS[w.length] };
  },
};

/** Training messages for an example: the prompt plus the reference answer as the assistant turn. */
export function withAnswer(ex: TaskExample): ChatMessage[] {
  return [...ex.messages, { role: 'assistant', content: ex.answer }];
}
