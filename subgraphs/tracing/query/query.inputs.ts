import 'reflect-metadata';
import { Field, InputType, registerEnumType } from 'type-graphql';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import { MAX_QUERY_DEPTH, parseQuery, type ConvertTarget, type Loc, type QueryNode } from './query-expression.js';

/**
 * Weave's query language (query-expression.ts) as typed GraphQL inputs. The wire form is MongoDB-like
 * (`{"$expr": {"$eq": [{"$getField": "op_name"}, {"$literal": "predict"}]}}`); the typed form names the same
 * operators as fields (`{expr: {eq: [{getField: "op_name"}, {literal: "predict"}]}}`), each operand an input
 * object of which exactly one field is given (GraphQL has no input unions).
 *
 * There is one grammar: a typed query is turned into the wire form (`queryToWire`) and checked by the same parser
 * as a REST body, whose issues (`["body","query","$expr","$eq",0,"$getField"]`) are then reported at the GraphQL
 * path (`["query","expr","eq",0,"getField"]`, see `QUERY_PATH`). REST routes go the other way (`queryFromWire`).
 */
export enum TraceQueryConvertTarget {
  DOUBLE = 'double',
  INT = 'int',
  BOOL = 'bool',
  STRING = 'string',
  EXISTS = 'exists',
}
registerEnumType(TraceQueryConvertTarget, {
  name: 'TraceQueryConvertTarget',
  description: 'What `convert` turns its input into ($convert `to`)',
  valuesConfig: {
    DOUBLE: { description: 'A floating-point number (null when the input is not numeric)' },
    INT: { description: 'An integer, truncated toward zero (null when the input is not numeric)' },
    BOOL: { description: 'A boolean: true/1 and false/0, case-insensitive (null otherwise)' },
    STRING: { description: 'The text of the input' },
    EXISTS: { description: 'Whether the input is present and not null' },
  },
});

/** The typed form of one operand (plain TypeScript: the input classes below only describe it to GraphQL). */
export interface QueryOperand {
  and?: QueryOperand[] | null;
  or?: QueryOperand[] | null;
  not?: QueryOperand | null;
  eq?: QueryOperand[] | null;
  gt?: QueryOperand[] | null;
  gte?: QueryOperand[] | null;
  in?: { value: QueryOperand; list: QueryOperand[] } | null;
  contains?: { input: QueryOperand; substr: QueryOperand; caseInsensitive?: boolean | null } | null;
  literal?: unknown;
  getField?: string | null;
  convert?: { input: QueryOperand; to: ConvertTarget } | null;
}
export interface Query {
  expr: QueryOperand;
}

// Property types are the interfaces above, not the classes: decorator metadata would otherwise reference a class
// before its declaration (the input types are mutually recursive).
@InputType('TraceQueryExpressionInput', {
  description: "An operation of a Weave query, which holds or not for each row: give exactly one field (the `$`-operator of Weave's wire form)",
})
export class TraceQueryExpressionInput {
  @Field(() => [TraceQueryOperandInput], { nullable: true, description: 'Holds when every operand holds ($and); at least one operand' })
  and?: QueryOperand[] | null;

  @Field(() => [TraceQueryOperandInput], { nullable: true, description: 'Holds when at least one operand holds ($or); at least one operand' })
  or?: QueryOperand[] | null;

  @Field(() => TraceQueryOperandInput, { nullable: true, description: 'Holds when its operand does not ($not)' })
  not?: QueryOperand | null;

  @Field(() => [TraceQueryOperandInput], {
    nullable: true,
    description: 'Holds when its two operands are equal ($eq), compared in the kind of the other side (a JSON value against 5 as a number); equal to a null literal means absent',
  })
  eq?: QueryOperand[] | null;

  @Field(() => [TraceQueryOperandInput], { nullable: true, description: 'Holds when the first of its two operands is greater than the second ($gt)' })
  gt?: QueryOperand[] | null;

  @Field(() => [TraceQueryOperandInput], { nullable: true, description: 'Holds when the first of its two operands is greater than or equal to the second ($gte)' })
  gte?: QueryOperand[] | null;

  @Field(() => TraceQueryInInput, { nullable: true, description: 'Holds when a value equals one of a list ($in)' })
  in?: QueryOperand['in'];

  @Field(() => TraceQueryContainsInput, { nullable: true, description: 'Holds when a text contains a substring ($contains)' })
  contains?: QueryOperand['contains'];
}

@InputType('TraceQueryOperandInput', {
  description:
    'An operand of a Weave query operation: an operation, a constant, a field of the queried rows or a conversion. Give exactly one field',
})
export class TraceQueryOperandInput extends TraceQueryExpressionInput {
  @Field(() => JSONScalar, { nullable: true, description: 'A constant: any JSON value, null included ($literal)' })
  literal?: unknown;

  @Field(() => String, {
    nullable: true,
    description: 'A field of the queried rows: a column or a dotted path into a JSON column ($getField); which exist depends on the list (docs/tracing.md)',
  })
  getField?: string | null;

  @Field(() => TraceQueryConvertInput, { nullable: true, description: 'An operand converted to another kind of value ($convert)' })
  convert?: QueryOperand['convert'];
}

@InputType('TraceQueryInInput', { description: 'The operands of `in`: a value and the list it may equal' })
export class TraceQueryInInput {
  @Field(() => TraceQueryOperandInput, { description: 'The value looked for' })
  value!: QueryOperand;

  @Field(() => [TraceQueryOperandInput], { description: 'The candidates; an empty list holds for nothing' })
  list!: QueryOperand[];
}

@InputType('TraceQueryContainsInput', { description: 'The operands of `contains`' })
export class TraceQueryContainsInput {
  @Field(() => TraceQueryOperandInput, { description: 'The text searched (other values are read as text)' })
  input!: QueryOperand;

  @Field(() => TraceQueryOperandInput, { description: 'The text looked for' })
  substr!: QueryOperand;

  @Field(() => Boolean, { nullable: true, description: 'Ignore the case of letters (default false)' })
  caseInsensitive?: boolean | null;
}

@InputType('TraceQueryConvertInput', { description: 'The operands of `convert`' })
export class TraceQueryConvertInput {
  @Field(() => TraceQueryOperandInput, { description: 'The value converted' })
  input!: QueryOperand;

  @Field(() => TraceQueryConvertTarget, { description: 'What it is converted to' })
  to!: ConvertTarget;
}

@InputType('TraceQueryInput', { description: "A Weave query: the rows for which its expression holds (Weave's `{\"$expr\": …}`)" })
export class TraceQueryInput {
  @Field(() => TraceQueryExpressionInput, { description: 'The expression each selected row satisfies ($expr)' })
  expr!: QueryOperand;
}

/** Operations on a list of operands: the same list on the wire and in the typed form. */
const LISTS = { and: '$and', or: '$or', eq: '$eq', gt: '$gt', gte: '$gte' } as const;
const takesList = (name: unknown) => typeof name === 'string' && Object.hasOwn(LISTS, name);
/** Operators followed by a key or index before the next operand. */
const takesArgument = (name: unknown) => takesList(name) || name === 'contains' || name === 'convert';

/**
 * Weave's wire form of a typed query, for the parser. Nothing is checked here: an operand with several (or no)
 * fields becomes an object with several (or no) operators, which the parser reports at its place. Nesting beyond
 * the parser's limit is cut off (the parser reports the depth before it would look there).
 */
export function queryToWire(query: Query | null | undefined): { $expr: unknown } | null {
  if (!query) return null;
  return { $expr: operandToWire(query.expr, 0) };
}

function operandToWire(operand: QueryOperand | null | undefined, depth: number): unknown {
  if (operand === null || operand === undefined || depth > MAX_QUERY_DEPTH + 1) return null;
  const wire: Record<string, unknown> = {};
  const child = (item: QueryOperand | null | undefined) => operandToWire(item, depth + 1);
  for (const [field, op] of Object.entries(LISTS)) {
    const items = operand[field as keyof typeof LISTS];
    if (items != null) wire[op] = items.map(child);
  }
  if (operand.not != null) wire.$not = [child(operand.not)];
  if (operand.in != null) wire.$in = [child(operand.in.value), operand.in.list.map(child)];
  if (operand.contains != null) {
    const { input, substr, caseInsensitive } = operand.contains;
    wire.$contains = { input: child(input), substr: child(substr), ...(caseInsensitive != null ? { case_insensitive: caseInsensitive } : {}) };
  }
  // A null literal is a value (eq null means "absent"); only a literal left out is no literal.
  if (operand.literal !== undefined) wire.$literal = operand.literal;
  if (operand.getField != null) wire.$getField = operand.getField;
  if (operand.convert != null) wire.$convert = { input: child(operand.convert.input), to: operand.convert.to };
  return wire;
}

/**
 * The GraphQL variable value of a wire query (REST routes). The wire form is parsed first, so a query the typed
 * form cannot hold (an unknown operator, a wrong shape) is a 422 at its wire location (`at`), as before; a valid
 * one converts without loss.
 */
export function queryFromWire(value: unknown, at: Loc = ['body', 'query']): Record<string, unknown> | null {
  const root = parseQuery(value, at);
  return root && { expr: nodeToGraphQL(root) };
}

function nodeToGraphQL(node: QueryNode): Record<string, unknown> {
  switch (node.op) {
    case '$literal':
      return { literal: node.value };
    case '$getField':
      return { getField: node.field };
    case '$convert':
      return { convert: { input: nodeToGraphQL(node.input), to: node.to.toUpperCase() } };
    case '$and':
    case '$or':
      return { [node.op.slice(1)]: node.operands.map(nodeToGraphQL) };
    case '$not':
      return { not: nodeToGraphQL(node.operand) };
    case '$eq':
    case '$gt':
    case '$gte':
      return { [node.op.slice(1)]: [nodeToGraphQL(node.left), nodeToGraphQL(node.right)] };
    case '$in':
      return { in: { value: nodeToGraphQL(node.left), list: node.list.map(nodeToGraphQL) } };
    case '$contains':
      return { contains: { input: nodeToGraphQL(node.input), substr: nodeToGraphQL(node.substr), caseInsensitive: node.caseInsensitive } };
  }
}

/** How a path below a read argument reads in GraphQL and on the wire (see read-arguments.ts). */
export interface PathMapping {
  toGraphQL(rest: Loc): Loc;
  toWire(rest: Loc): Loc;
}

/**
 * Paths inside a query: `["$expr","$not",0,"$in",1,2,"$literal"]` on the wire is
 * `["expr","not","in","list",2,"literal"]` in GraphQL. Purely syntactic, so issues found in either form map to the
 * other; segments that are not the grammar's stay as they are.
 */
export const QUERY_PATH: PathMapping = {
  toGraphQL(rest) {
    if (rest[0] !== '$expr') return rest;
    const path: Loc = ['expr'];
    for (let i = 1; i < rest.length; ) {
      const op = rest[i++]!;
      if (typeof op !== 'string' || !op.startsWith('$')) {
        path.push(op);
        continue;
      }
      const name = op.slice(1);
      path.push(name);
      if (i >= rest.length) break;
      if (name === 'not') i++;
      else if (name === 'in') {
        const side = rest[i++];
        if (side === 0) path.push('value');
        else if (side === 1) path.push('list');
        else path.push(side!);
      } else if (name === 'contains' && rest[i] === 'case_insensitive') {
        path.push('caseInsensitive');
        i++;
      } else if (takesArgument(name)) path.push(rest[i++]!);
    }
    return path;
  },
  toWire(rest) {
    if (rest[0] !== 'expr') return rest;
    const path: Loc = ['$expr'];
    for (let i = 1; i < rest.length; ) {
      const name = rest[i++]!;
      const operator = takesList(name) || ['not', 'in', 'contains', 'convert', 'literal', 'getField'].includes(name as string);
      if (!operator) {
        path.push(name);
        continue;
      }
      path.push(`$${String(name)}`);
      if (i >= rest.length) break;
      if (name === 'not') path.push(0);
      else if (name === 'in') {
        const side = rest[i++];
        path.push(side === 'value' ? 0 : side === 'list' ? 1 : side!);
      } else if (name === 'contains' && rest[i] === 'caseInsensitive') {
        path.push('case_insensitive');
        i++;
      } else if (takesArgument(name)) path.push(rest[i++]!);
    }
    return path;
  },
};
