import { RE2JS } from 're2js';

/**
 * Regular expressions written by automation authors (alias, tag and run-name filters).
 *
 * They run inside the automation engine, which serves every team of the installation, on values that other users
 * choose (alias and run names). JavaScript's backtracking engine can take exponential time on patterns such as
 * `(a+)+$`, so one member could stall deliveries for everyone. RE2 semantics (re2js, pure JavaScript) match in time
 * linear in the input; the price is that backreferences and lookaround are rejected when the automation is saved.
 */
export class InvalidUserRegexError extends Error {}

const COMPILED_CACHE_LIMIT = 1_000;
const compiled = new Map<string, RE2JS>();

/** Compiles `source` with RE2 semantics, or throws InvalidUserRegexError saying what is wrong with it. */
export function compileUserRegex(source: string): RE2JS {
  const cached = compiled.get(source);
  if (cached) return cached;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(source);
  } catch (error) {
    throw new InvalidUserRegexError(`${(error as Error).message} (patterns use RE2 syntax: no backreferences or lookaround)`);
  }
  // Automations are few; the bound only keeps a pathological stream of distinct patterns from growing the map.
  if (compiled.size >= COMPILED_CACHE_LIMIT) compiled.clear();
  compiled.set(source, regex);
  return regex;
}

/**
 * Whether `text` contains a match of `source` (search semantics, like RegExp.prototype.test). A stored pattern that
 * RE2 cannot compile (saved before patterns were checked with RE2) matches nothing rather than failing the engine's
 * whole batch of events.
 */
export function userRegexMatches(source: string, text: string): boolean {
  try {
    return compileUserRegex(source).matcher(text).find();
  } catch (error) {
    if (error instanceof InvalidUserRegexError) return false;
    throw error;
  }
}
