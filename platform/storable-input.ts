import type { ValidationIssue } from './errors.js';

/**
 * What PostgreSQL cannot store, found once at the edge. `text` and `jsonb` reject U+0000; `jsonb` rejects a lone
 * UTF-16 surrogate (JSON.stringify writes it as a `\udXXX` escape, which has no code point); a value nested
 * thousands of levels deep overflows a recursive walk somewhere (PostgreSQL's jsonb input, our own renderers).
 * Such input is refused before anything runs, with the path of the first offence, so each API family can answer
 * it in its own error shape (platform/http/json-body-parser.ts for REST bodies, gateway/plugins/storable-input.ts
 * for GraphQL variables and literals). Text that comes from elsewhere and must be stored anyway (a webhook
 * receiver's answer, an event payload) goes through `toStorableText`/`toStorableJson` instead.
 */

/** Default nesting limit of JSON input (objects and arrays); `TRELLIS_JSON_MAX_DEPTH` overrides it. */
export const DEFAULT_JSON_MAX_DEPTH = 256;

export type UnstorableReason = 'nul_character' | 'lone_surrogate' | 'too_deep';

export interface UnstorableInput {
  /** Keys and indexes from the root to the offending value (or key). */
  path: (string | number)[];
  reason: UnstorableReason;
}

// Any NUL or surrogate code unit; only strings that contain one need the exact (slower) check.
const SUSPECT = /[\u0000\ud800-\udfff]/;
const NUL_OR_LONE_SURROGATE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NUL_OR_LONE_SURROGATE_GLOBAL = new RegExp(NUL_OR_LONE_SURROGATE.source, 'g');

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableCharacter(text: string): Exclude<UnstorableReason, 'too_deep'> | undefined {
  if (!SUSPECT.test(text)) return undefined;
  const match = NUL_OR_LONE_SURROGATE.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000' ? 'nul_character' : 'lone_surrogate';
}

/**
 * The first string, key or nesting level of a JSON value that cannot be stored, or undefined. The recursion is
 * bounded by `maxDepth` (a value is refused before the walk goes deeper), so a hostile depth cannot overflow the
 * stack; each value is visited once and nothing is allocated unless an offence is found.
 */
export function findUnstorableInput(value: unknown, maxDepth: number = DEFAULT_JSON_MAX_DEPTH): UnstorableInput | undefined {
  return walk(value, 0, maxDepth);
}

function walk(value: unknown, depth: number, maxDepth: number): UnstorableInput | undefined {
  if (typeof value === 'string') {
    const reason = unstorableCharacter(value);
    return reason ? { path: [], reason } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  // File contents (multipart parts arrive as Buffers) are bytes, not text.
  if (ArrayBuffer.isView(value)) return undefined;
  if (depth >= maxDepth) return { path: [], reason: 'too_deep' };
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = walk(value[index], depth + 1, maxDepth);
      if (found) {
        found.path.unshift(index);
        return found;
      }
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const reason = unstorableCharacter(key);
    if (reason) return { path: [key], reason };
    const found = walk((value as Record<string, unknown>)[key], depth + 1, maxDepth);
    if (found) {
      found.path.unshift(key);
      return found;
    }
  }
  return undefined;
}

export function unstorableMessage(reason: UnstorableReason, maxDepth: number = DEFAULT_JSON_MAX_DEPTH): string {
  switch (reason) {
    case 'nul_character':
      return 'String should not contain the NUL character (U+0000)';
    case 'lone_surrogate':
      return 'String should not contain a lone UTF-16 surrogate (invalid Unicode)';
    case 'too_deep':
      return `Value should not be nested more than ${maxDepth} levels deep`;
  }
}

/** The pydantic-style issue for an offence found in a request part (`body`, `query`, `path`). */
export function unstorableIssue(found: UnstorableInput, part: string, maxDepth: number = DEFAULT_JSON_MAX_DEPTH): ValidationIssue {
  return {
    loc: [part, ...found.path],
    msg: unstorableMessage(found.reason, maxDepth),
    type: found.reason === 'too_deep' ? 'too_deep' : 'string_unstorable_character',
  };
}

/** The text with every NUL and lone surrogate replaced by U+FFFD, for text from elsewhere that must be stored. */
export function toStorableText(text: string): string;
export function toStorableText(text: string | null): string | null;
export function toStorableText(text: string | null): string | null {
  if (text === null || !SUSPECT.test(text)) return text;
  return text.replace(NUL_OR_LONE_SURROGATE_GLOBAL, '\ufffd');
}

// JSON.stringify writes U+0000 as `\u0000` and a lone surrogate as `\udXXX` (paired ones stay raw characters).
const ESCAPED_SUSPECT = /\\u(0000|d[89a-f])/i;

/**
 * JSON text of a value that `jsonb` accepts: strings (and keys) that cannot be stored have their offending
 * characters replaced by U+FFFD. The common case costs one JSON.stringify and one scan of its output.
 */
export function toStorableJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined || !ESCAPED_SUSPECT.test(json)) return json;
  return JSON.stringify(value, function (this: unknown, _key: string, current: unknown) {
    if (typeof current === 'string') return toStorableText(current);
    if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
      const entries = Object.entries(current as Record<string, unknown>);
      if (entries.some(([key]) => unstorableCharacter(key))) return Object.fromEntries(entries.map(([key, inner]) => [toStorableText(key), inner]));
    }
    return current;
  });
}
