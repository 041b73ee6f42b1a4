import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';

/**
 * Weave's Query language (a subset of MongoDB aggregation expressions), as the Weave SDKs send it in the `query` of
 * /calls/query, /calls/stream_query, /calls/query_stats and /feedback/query:
 *
 *   {"$expr": <operation>}
 *   operation := {"$and": [operand, …]} | {"$or": [operand, …]} | {"$not": [operand]}
 *              | {"$eq"|"$gt"|"$gte": [operand, operand]} | {"$in": [operand, [operand, …]]}
 *              | {"$contains": {"input": operand, "substr": operand, "case_insensitive"?: bool}}
 *   operand   := operation | {"$literal": json} | {"$getField": "dotted.path"}
 *              | {"$convert": {"input": operand, "to": "double"|"int"|"bool"|"string"|"exists"}}
 *
 * This module only checks the shape and builds a tree; which fields exist and how values compare is the business of
 * the SQL compiler (query-sql.ts) and the field catalog of the queried table. Every node keeps its `loc`, so a
 * problem found later still points at the exact place in the request body.
 */
export const CONVERT_TARGETS = ['double', 'int', 'bool', 'string', 'exists'] as const;
export type ConvertTarget = (typeof CONVERT_TARGETS)[number];

export type Loc = (string | number)[];
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type QueryNode =
  | { op: '$literal'; value: JsonValue; loc: Loc }
  | { op: '$getField'; field: string; loc: Loc }
  | { op: '$convert'; input: QueryNode; to: ConvertTarget; loc: Loc }
  | { op: '$and' | '$or'; operands: QueryNode[]; loc: Loc }
  | { op: '$not'; operand: QueryNode; loc: Loc }
  | { op: '$eq' | '$gt' | '$gte'; left: QueryNode; right: QueryNode; loc: Loc }
  | { op: '$in'; left: QueryNode; list: QueryNode[]; loc: Loc }
  | { op: '$contains'; input: QueryNode; substr: QueryNode; caseInsensitive: boolean; loc: Loc };

const OPERATIONS = ['$and', '$or', '$not', '$eq', '$gt', '$gte', '$in', '$contains'] as const;
const OPERANDS = ['$literal', '$getField', '$convert', ...OPERATIONS] as const;

/**
 * Bounds of one expression: nesting (the parser and compiler recurse) and operands (each may bind a few SQL
 * parameters, and PostgreSQL takes at most 65,535 per statement). A `$in` list of literals is one parameter.
 */
export const MAX_QUERY_DEPTH = 64;
export const MAX_QUERY_OPERANDS = 5_000;

/** A syntax problem; collected so one response lists them all, like pydantic. */
class QuerySyntax {
  readonly issues: ValidationIssue[] = [];
  operands = 0;
  fail(loc: Loc, msg: string, type: string): null {
    this.issues.push({ loc, msg, type });
    return null;
  }
}

/**
 * Parses `{"$expr": …}` found at `loc` (e.g. `["body","query"]`). Returns null for an absent query; throws a
 * ValidationFailedError listing every problem otherwise.
 */
export function parseQuery(value: unknown, loc: Loc): QueryNode | null {
  if (value === undefined || value === null) return null;
  const syntax = new QuerySyntax();
  let root: QueryNode | null = null;
  if (!isPlainObject(value)) {
    syntax.fail(loc, 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type');
  } else {
    for (const key of Object.keys(value)) if (key !== '$expr') syntax.fail([...loc, key], 'Extra inputs are not permitted', 'extra_forbidden');
    if (!('$expr' in value)) syntax.fail([...loc, '$expr'], 'Field required', 'missing');
    else root = parseOperand(value.$expr, [...loc, '$expr'], syntax, true);
  }
  if (syntax.issues.length > 0) throw new ValidationFailedError(syntax.issues);
  return root;
}

function parseOperand(value: unknown, loc: Loc, syntax: QuerySyntax, operationOnly = false, depth = 0): QueryNode | null {
  if (depth > MAX_QUERY_DEPTH) return syntax.fail(loc, `The expression is nested more than ${MAX_QUERY_DEPTH} levels deep`, 'value_error');
  if (++syntax.operands > MAX_QUERY_OPERANDS) {
    if (syntax.operands === MAX_QUERY_OPERANDS + 1) syntax.fail(loc, `The expression has more than ${MAX_QUERY_OPERANDS} operands`, 'value_error');
    return null;
  }
  const allowed: readonly string[] = operationOnly ? OPERATIONS : OPERANDS;
  const child = (item: unknown, at: Loc) => parseOperand(item, at, syntax, false, depth + 1);
  if (!isPlainObject(value) || Object.keys(value).length !== 1) {
    return syntax.fail(loc, `Input should be an object with exactly one operator: ${allowed.join(', ')}`, 'value_error');
  }
  const [op, arg] = Object.entries(value)[0]!;
  const at = [...loc, op];
  if (!allowed.includes(op)) {
    const why = (OPERANDS as readonly string[]).includes(op) ? `"${op}" is an operand, not an operation; ` : `Unknown operator "${op}"; `;
    return syntax.fail(at, `${why}expected one of ${allowed.join(', ')}`, 'value_error');
  }
  switch (op) {
    case '$literal':
      return { op, value: arg as JsonValue, loc: at };
    case '$getField':
      if (typeof arg !== 'string' || arg.length === 0) return syntax.fail(at, 'Input should be a non-empty string naming a field', 'string_type');
      return { op, field: arg, loc: at };
    case '$convert': {
      const spec = parseSpec(arg, at, syntax, ['input', 'to'], []);
      if (!spec) return null;
      const input = child(spec.input, [...at, 'input']);
      if (!(CONVERT_TARGETS as readonly unknown[]).includes(spec.to)) {
        return syntax.fail([...at, 'to'], `Input should be ${CONVERT_TARGETS.map((t) => `'${t}'`).join(', ')}`, 'enum');
      }
      return input && { op, input, to: spec.to as ConvertTarget, loc: at };
    }
    case '$and':
    case '$or': {
      const items = parseList(arg, at, syntax, 1);
      if (!items) return null;
      const operands = items.map((item, i) => child(item, [...at, i]));
      return operands.every(isNode) ? { op, operands, loc: at } : null;
    }
    case '$not': {
      const items = parseList(arg, at, syntax, 1, 1);
      const operand = items && child(items[0], [...at, 0]);
      return operand ? { op, operand, loc: at } : null;
    }
    case '$eq':
    case '$gt':
    case '$gte': {
      const items = parseList(arg, at, syntax, 2, 2);
      if (!items) return null;
      const left = child(items[0], [...at, 0]);
      const right = child(items[1], [...at, 1]);
      return left && right ? { op, left, right, loc: at } : null;
    }
    case '$in': {
      const items = parseList(arg, at, syntax, 2, 2);
      if (!items) return null;
      const left = child(items[0], [...at, 0]);
      const candidates = parseList(items[1], [...at, 1], syntax, 0);
      const list = (candidates ?? []).map((item, i) => child(item, [...at, 1, i]));
      return left && candidates && list.every(isNode) ? { op, left, list, loc: at } : null;
    }
    case '$contains': {
      const spec = parseSpec(arg, at, syntax, ['input', 'substr'], ['case_insensitive']);
      if (!spec) return null;
      const input = child(spec.input, [...at, 'input']);
      const substr = child(spec.substr, [...at, 'substr']);
      const caseInsensitive = spec.case_insensitive ?? false;
      if (caseInsensitive !== null && typeof caseInsensitive !== 'boolean') {
        return syntax.fail([...at, 'case_insensitive'], 'Input should be a valid boolean', 'bool_type');
      }
      return input && substr ? { op, input, substr, caseInsensitive: caseInsensitive === true, loc: at } : null;
    }
  }
  return null;
}

/** An object with the given required keys (and optional ones), nothing else. */
function parseSpec(value: unknown, loc: Loc, syntax: QuerySyntax, required: string[], optional: string[]): Record<string, unknown> | null {
  if (!isPlainObject(value)) return syntax.fail(loc, 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type');
  let ok = true;
  for (const key of required) if (!(key in value)) ok = !!syntax.fail([...loc, key], 'Field required', 'missing');
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key)) ok = !!syntax.fail([...loc, key], 'Extra inputs are not permitted', 'extra_forbidden');
  }
  return ok ? value : null;
}

function parseList(value: unknown, loc: Loc, syntax: QuerySyntax, min: number, max = Infinity): unknown[] | null {
  if (!Array.isArray(value)) return syntax.fail(loc, 'Input should be a valid list', 'list_type');
  if (value.length < min) return syntax.fail(loc, `List should have at least ${min} item${min === 1 ? '' : 's'}`, 'too_short');
  if (value.length > max) return syntax.fail(loc, `List should have at most ${max} item${max === 1 ? '' : 's'}`, 'too_long');
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNode(node: QueryNode | null): node is QueryNode {
  return node !== null;
}
