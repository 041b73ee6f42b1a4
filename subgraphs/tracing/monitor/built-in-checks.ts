import { Ajv, type ValidateFunction } from 'ajv';
import { RE2JS } from 're2js';
import { callFieldValue, jsonEquals, textOf, type MonitoredCall } from './monitored-call.js';
import type { MonitorScorer } from './monitor.schemas.js';

/** What a scorer made of one call: a score in [0, 1] with the reason, or why it could not score it. */
export type ScoreOutcome = { score: number; reason: string } | { failed: string };

/** A scorer ready to run: settings checked and compiled once. */
export type BuiltInCheck = (call: MonitoredCall) => ScoreOutcome;

/** Thrown by compileCheck for settings that can never work; `setting` names the scorer field at fault. */
export class InvalidCheckError extends Error {
  constructor(
    readonly setting: keyof MonitorScorer,
    message: string,
  ) {
    super(message);
  }
}

/**
 * JSON Schemas written by monitor authors: their own Ajv (never the platform's request validator, whose compiled
 * schemas and formats they must not touch), lenient about unknown keywords, first error only (the reason).
 */
const userSchemas = new Ajv({ allErrors: false, strict: false, validateSchema: true });

const COMPILED_LIMIT = 1_000;
const compiled = new Map<string, BuiltInCheck>();

/**
 * The check a scorer describes, compiled (patterns with RE2 — linear time whatever the pattern, since patterns come
 * from users and run on everyone's calls — and JSON Schemas with Ajv), or InvalidCheckError. Cached by definition.
 */
export function compileCheck(scorer: MonitorScorer): BuiltInCheck {
  const key = JSON.stringify(scorer);
  const cached = compiled.get(key);
  if (cached) return cached;
  const check = buildCheck(scorer);
  if (compiled.size >= COMPILED_LIMIT) compiled.clear();
  compiled.set(key, check);
  return check;
}

function buildCheck(scorer: MonitorScorer): BuiltInCheck {
  const field = scorer.field ?? 'output';
  const read = (call: MonitoredCall) => callFieldValue(call, field);
  switch (scorer.kind) {
    case 'regex': {
      if (!scorer.pattern) throw new InvalidCheckError('pattern', 'A regex check needs a pattern');
      let regex: RE2JS;
      try {
        regex = RE2JS.compile(scorer.pattern);
      } catch (error) {
        throw new InvalidCheckError('pattern', `Invalid pattern: ${(error as Error).message} (RE2 syntax: no backreferences or lookaround)`);
      }
      return (call) => {
        const text = textOf(read(call));
        if (text === undefined) return { failed: `${field} is absent` };
        return regex.matcher(text).find() ? { score: 1, reason: `${field} matches /${scorer.pattern}/` } : { score: 0, reason: `${field} does not match /${scorer.pattern}/` };
      };
    }
    case 'json_schema': {
      if (!scorer.json_schema) throw new InvalidCheckError('json_schema', 'A json_schema check needs a JSON Schema');
      let validate: ValidateFunction;
      try {
        validate = userSchemas.compile(scorer.json_schema);
      } catch (error) {
        throw new InvalidCheckError('json_schema', `Invalid JSON Schema: ${(error as Error).message}`);
      }
      return (call) => {
        let value = read(call);
        if (value === undefined) return { failed: `${field} is absent` };
        if (typeof value === 'string') {
          try {
            value = JSON.parse(value);
          } catch {
            return { score: 0, reason: `${field} is not JSON` };
          }
        }
        if (validate(value)) return { score: 1, reason: `${field} is valid against the schema` };
        const first = validate.errors?.[0];
        return { score: 0, reason: `${field}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}` };
      };
    }
    case 'length': {
      const min = scorer.min_length ?? 0;
      const max = scorer.max_length ?? Number.POSITIVE_INFINITY;
      if (scorer.min_length == null && scorer.max_length == null) throw new InvalidCheckError('min_length', 'A length check needs min_length, max_length or both');
      if (min > max) throw new InvalidCheckError('max_length', 'max_length must be at least min_length');
      return (call) => {
        const text = textOf(read(call));
        if (text === undefined) return { failed: `${field} is absent` };
        // Characters as a reader counts them (code points), not UTF-16 units.
        const length = [...text].length;
        const within = length >= min && length <= max;
        return { score: within ? 1 : 0, reason: `${field} has ${length} characters (${within ? 'within' : 'outside'} ${min}–${max === Number.POSITIVE_INFINITY ? '∞' : max})` };
      };
    }
    case 'llm_judge':
      // Not a check: it asks a model (llm-judge.ts), asynchronously, outside any transaction.
      throw new Error('an LLM judge is not a built-in check');
    case 'contains':
    case 'equals': {
      const other = scorer.other_field;
      if (!other) throw new InvalidCheckError('other_field', `A ${scorer.kind} check needs other_field`);
      return (call) => {
        const value = read(call);
        const expected = callFieldValue(call, other);
        if (value === undefined) return { failed: `${field} is absent` };
        if (expected === undefined) return { failed: `${other} is absent` };
        if (scorer.kind === 'contains') {
          const hit = textOf(value)!.includes(textOf(expected)!);
          return { score: hit ? 1 : 0, reason: `${field} ${hit ? 'contains' : 'does not contain'} ${other}` };
        }
        const equal = typeof value === 'string' && typeof expected === 'string' ? value.trim() === expected.trim() : jsonEquals(value, expected);
        return { score: equal ? 1 : 0, reason: `${field} ${equal ? 'equals' : 'differs from'} ${other}` };
      };
    }
  }
}
