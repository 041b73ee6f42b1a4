import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import type { JsonValue, Loc, QueryNode } from './query-expression.js';

/**
 * Compiles a parsed Query (query-expression.ts) into one parameterised SQL condition. Every user value is a bound
 * parameter; field names only ever select SQL from a field catalog (a fixed table of columns), and paths into JSON
 * columns are passed as a `text[]` parameter to `#>`, so no part of a request is spliced into SQL text.
 *
 * Values carry a kind. Comparisons bring both sides to a common kind: a JSON value is read in the kind of what it
 * is compared with (`inputs.n` against 5 is numeric, against "5" textual), text against a number is numeric, a
 * date against a number is epoch seconds and against a string literal is that date. Conversions that cannot
 * succeed give NULL rather than an error, and every condition is two-valued (NULL counts as false), so `$not`
 * of a comparison on a missing field holds.
 */
export type ValueKind = 'text' | 'number' | 'bool' | 'timestamp' | 'json' | 'null';

export interface SqlValue {
  kind: ValueKind;
  sql: RawBuilder<unknown>;
  /** Set for `$literal` operands (dates are parsed from string literals). */
  literal?: JsonValue;
  /** Set when the SQL is already a two-valued condition. */
  condition?: boolean;
  /**
   * A derived field's equality with a literal in a form an index can serve, where there is one (`status = 'error'` is
   * `exception is not null`, which a partial index answers; the CASE expression itself makes PostgreSQL read every
   * row). Undefined where the value has no such form; the result must mean exactly what the comparison means.
   */
  equalsLiteral?: (value: JsonValue) => RawBuilder<unknown> | undefined;
}

/** The fields of one queryable table: a field name or dotted path → its SQL value, or why it is not a field. */
export interface FieldCatalog {
  resolve(field: string): SqlValue | { error: string };
}

export type SortDirection = 'asc' | 'desc';
export interface OrderTerm {
  sql: RawBuilder<unknown>;
  direction: SortDirection;
}

const NUMBER_PATTERN = String.raw`^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$`;

/** A JSON value at a path of a jsonb column (the path is one parameter). */
export function jsonAt(column: RawBuilder<unknown>, path: string[]): SqlValue {
  return { kind: 'json', sql: path.length === 0 ? column : sql`(${column} #> ${path}::text[])` };
}

export function asText(value: SqlValue): RawBuilder<unknown> {
  switch (value.kind) {
    case 'text':
      return value.sql;
    case 'number':
    case 'bool':
      return sql`(${value.sql})::text`;
    case 'timestamp':
      return sql`to_char((${value.sql}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case 'json':
      return sql`(${value.sql} #>> '{}')`;
    case 'null':
      return sql`null::text`;
  }
}

export function asNumber(value: SqlValue): RawBuilder<unknown> {
  switch (value.kind) {
    case 'number':
      return value.sql;
    case 'bool':
      return sql`(${value.sql})::int::double precision`;
    case 'timestamp':
      return sql`extract(epoch from ${value.sql})::double precision`;
    case 'null':
      return sql`null::double precision`;
    case 'text':
    case 'json': {
      const text = asText(value);
      return sql`(case when ${text} ~ ${sql.lit(NUMBER_PATTERN)} then (${text})::double precision end)`;
    }
  }
}

export function asBool(value: SqlValue): RawBuilder<unknown> {
  switch (value.kind) {
    case 'bool':
      return value.sql;
    case 'number':
      return sql`(${value.sql} <> 0)`;
    case 'timestamp':
      return sql`(${value.sql} is not null)`;
    case 'null':
      return sql`null::boolean`;
    case 'text':
    case 'json':
      return sql`(case lower(${asText(value)}) when 'true' then true when '1' then true when 'false' then false when '0' then false end)`;
  }
}

function asExists(value: SqlValue): RawBuilder<unknown> {
  if (value.kind === 'json') return sql`coalesce(jsonb_typeof(${value.sql}) <> 'null', false)`;
  if (value.kind === 'null') return sql`false`;
  return sql`(${value.sql} is not null)`;
}

/** How a field sorts: JSON values as Weave does (present first, then numerically, then textually); others directly. */
export function orderTermsOf(value: SqlValue, direction: SortDirection): OrderTerm[] {
  if (value.kind !== 'json') return [{ sql: value.sql, direction }];
  return [
    { sql: asExists(value), direction: 'desc' },
    { sql: asNumber(value), direction },
    { sql: asText(value), direction },
  ];
}

/** Compiles a parsed `$expr` against a table's fields; throws a ValidationFailedError listing every problem. */
export function compileCondition(root: QueryNode, fields: FieldCatalog): RawBuilder<SqlBool> {
  const compiler = new Compiler(fields);
  const condition = compiler.condition(compiler.value(root));
  if (compiler.issues.length > 0) throw new ValidationFailedError(compiler.issues);
  return condition as RawBuilder<SqlBool>;
}

/** Resolves one field (a sort key, say) or throws a 422 at `loc`. */
export function resolveFieldOrThrow(fields: FieldCatalog, field: string, loc: Loc): SqlValue {
  const resolved = fields.resolve(field);
  if ('error' in resolved) throw new ValidationFailedError([{ loc, msg: resolved.error, type: 'value_error' }]);
  return resolved;
}

const COMPARISON_SQL = { $eq: sql`=`, $gt: sql`>`, $gte: sql`>=` } as const;
const INVALID: SqlValue = { kind: 'null', sql: sql`null` };

class Compiler {
  readonly issues: ValidationIssue[] = [];
  constructor(private readonly fields: FieldCatalog) {}

  private fail(loc: Loc, msg: string): SqlValue {
    this.issues.push({ loc, msg, type: 'value_error' });
    return INVALID;
  }

  value(node: QueryNode): SqlValue {
    switch (node.op) {
      case '$literal':
        return literal(node.value);
      case '$getField': {
        const resolved = this.fields.resolve(node.field);
        return 'error' in resolved ? this.fail(node.loc, resolved.error) : resolved;
      }
      case '$convert': {
        const input = this.value(node.input);
        switch (node.to) {
          case 'double':
            return { kind: 'number', sql: asNumber(input) };
          case 'int':
            return { kind: 'number', sql: sql`trunc(${asNumber(input)})` };
          case 'string':
            return { kind: 'text', sql: asText(input) };
          case 'bool':
            return { kind: 'bool', sql: asBool(input) };
          case 'exists':
            return { kind: 'bool', sql: asExists(input), condition: true };
        }
        break;
      }
      case '$and':
      case '$or': {
        const parts = node.operands.map((operand) => this.condition(this.value(operand)));
        return bool(sql`(${sql.join(parts, node.op === '$and' ? sql` and ` : sql` or `)})`);
      }
      case '$not':
        return bool(sql`(not ${this.condition(this.value(node.operand))})`);
      case '$eq':
      case '$gt':
      case '$gte':
        return this.compare(node.op, this.value(node.left), this.value(node.right), node.loc);
      case '$in':
        return this.in(this.value(node.left), node.list.map((item) => this.value(item)), node.loc);
      case '$contains': {
        let input = asText(this.value(node.input));
        let substr = asText(this.value(node.substr));
        if (node.caseInsensitive) [input, substr] = [sql`lower(${input})`, sql`lower(${substr})`];
        return bool(sql`coalesce(strpos(${input}, ${substr}) > 0, false)`);
      }
    }
    return INVALID;
  }

  /** An operand used where a condition is expected ($and, $or, $not, $expr): two-valued. */
  condition(value: SqlValue): RawBuilder<unknown> {
    return value.condition ? value.sql : sql`coalesce(${asBool(value)}, false)`;
  }

  private compare(op: '$eq' | '$gt' | '$gte', left: SqlValue, right: SqlValue, loc: Loc): SqlValue {
    if (left === INVALID || right === INVALID) return INVALID;
    // `$eq` with null means "absent": a missing path, JSON null or SQL NULL. An ordering against null holds for nothing.
    if (left.kind === 'null' || right.kind === 'null') {
      if (op !== '$eq') return bool(sql`false`);
      const other = left.kind === 'null' ? right : left;
      return bool(sql`(not ${asExists(other)})`);
    }
    if (op === '$eq') {
      const [field, value] = left.literal === undefined ? [left, right] : [right, left];
      const rewritten = value.literal !== undefined ? field.equalsLiteral?.(value.literal) : undefined;
      if (rewritten) return bool(rewritten);
    }
    const kind = this.commonKind(left, right, loc);
    if (!kind) return INVALID;
    const [a, b] = [this.as(left, kind, loc), this.as(right, kind, loc)];
    return bool(sql`coalesce(${a} ${COMPARISON_SQL[op]} ${b}, false)`);
  }

  private in(left: SqlValue, list: SqlValue[], loc: Loc): SqlValue {
    if (list.length === 0) return bool(sql`false`);
    // A list of plain strings or numbers is one array parameter; anything else is a disjunction of `$eq`s.
    const kinds = new Set(list.map((item) => (item.literal !== undefined ? item.kind : 'expression')));
    const [only] = kinds;
    if (kinds.size === 1 && (only === 'text' || only === 'number') && left.kind !== 'null') {
      const kind = this.commonKind(left, list[0]!, loc);
      if (kind === only) {
        const values = list.map((item) => item.literal);
        return bool(sql`coalesce(${this.as(left, kind, loc)} = any(${values}::${sql.raw(kind === 'text' ? 'text[]' : 'double precision[]')}), false)`);
      }
    }
    const parts = list.map((item) => this.compare('$eq', left, item, loc));
    if (parts.includes(INVALID)) return INVALID;
    return bool(sql`(${sql.join(parts.map((part) => part.sql), sql` or `)})`);
  }

  /** The kind both sides of a comparison are read in, or null (and an issue) when they cannot be compared. */
  private commonKind(left: SqlValue, right: SqlValue, loc: Loc): ValueKind | 'jsonb' | null {
    if (left.kind === right.kind) return left.kind === 'json' ? 'jsonb' : left.kind;
    const pair = new Set([left.kind, right.kind]);
    const has = (kind: ValueKind) => pair.has(kind);
    if (has('json')) {
      const other = left.kind === 'json' ? right : left;
      // An object or array literal compares only with JSON.
      if (other.kind === 'timestamp') return 'number';
      return other.kind;
    }
    if (has('text') && has('number')) return 'number';
    if (has('text') && has('bool')) return 'bool';
    if (has('number') && has('bool')) return 'number';
    if (has('timestamp') && has('number')) return 'number';
    if (has('timestamp') && has('text')) {
      const text = left.kind === 'text' ? left : right;
      if (text.literal !== undefined) return 'timestamp';
      this.fail(loc, 'A date can be compared with a number (epoch seconds) or a date string literal, not with a text field');
      return null;
    }
    this.fail(loc, `Cannot compare a ${describe(left.kind)} with a ${describe(right.kind)}`);
    return null;
  }

  private as(value: SqlValue, kind: ValueKind | 'jsonb', loc: Loc): RawBuilder<unknown> {
    switch (kind) {
      case 'jsonb':
        return value.sql;
      case 'text':
        return asText(value);
      case 'number':
        return asNumber(value);
      case 'bool':
        return asBool(value);
      case 'timestamp':
        if (value.kind === 'timestamp') return value.sql;
        if (typeof value.literal === 'string') {
          const date = new Date(value.literal);
          if (!Number.isNaN(date.getTime())) return sql`${date.toISOString()}::timestamptz`;
        }
        this.fail(loc, `"${String(value.literal)}" is not a valid date`);
        return sql`null::timestamptz`;
      default:
        return value.sql;
    }
  }
}

function bool(condition: RawBuilder<unknown>): SqlValue {
  return { kind: 'bool', sql: condition, condition: true };
}

function literal(value: JsonValue): SqlValue {
  if (value === null) return { kind: 'null', sql: sql`null`, literal: value };
  switch (typeof value) {
    case 'string':
      return { kind: 'text', sql: sql`${value}::text`, literal: value };
    case 'number':
      return { kind: 'number', sql: sql`${value}::double precision`, literal: value };
    case 'boolean':
      return { kind: 'bool', sql: sql`${value}::boolean`, literal: value };
    default:
      return { kind: 'json', sql: sql`${JSON.stringify(value)}::jsonb`, literal: value };
  }
}

function describe(kind: ValueKind): string {
  return { text: 'string', number: 'number', bool: 'boolean', timestamp: 'date', json: 'JSON value', null: 'null' }[kind];
}
