import 'reflect-metadata';
import { Directive, Field, ObjectType, type ClassType } from 'type-graphql';
import { ValidationFailedError } from '../errors.js';

/**
 * The one convention for lists that can grow, in every subgraph: Relay cursor connections, as the GitHub and
 * Shopify APIs have them.
 *
 *   calls(first: 50, after: "…") { edges { cursor node { … } } nodes { … } pageInfo { hasNextPage endCursor } }
 *
 * - `first` defaults to the connection's default page and may not exceed its maximum (beyond it the field answers
 *   VALIDATION_FAILED with an issue at `first`, so a client learns the limit instead of silently getting less);
 * - cursors are opaque strings; each connection decides what it encodes (a keyset position where the order
 *   allows it, an offset otherwise) with `encodeCursor`/`decodeCursor`;
 * - `nodes` is the edges' nodes, for clients that need no per-edge cursor.
 * Lists that are small by nature (a team's members, a model's aliases) stay plain lists.
 */
@ObjectType('PageInfo', { description: 'Where a page of a connection sits in the whole list' })
@Directive('@shareable')
export class PageInfo {
  @Field(() => Boolean, { description: 'More items follow this page (fetch them with `after: endCursor`)' })
  hasNextPage!: boolean;

  @Field(() => Boolean, { description: 'Items precede this page (it was fetched with `after`)' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: "The first item's cursor; null on an empty page" })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: "The last item's cursor: pass it as `after` for the next page; null on an empty page" })
  endCursor!: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
}

export interface PageLimits {
  /** Items per page when the client does not say. */
  default: number;
  /** The most items one page may hold. */
  max: number;
}

/**
 * The connection and edge object types of a node type: `<Name>Connection` and `<Name>Edge`. Call once per node type,
 * at module level, next to the node type.
 */
export function connectionTypes<T extends object>(node: ClassType<T>, name: string, what: string): ClassType<Connection<T>> {
  @ObjectType(`${name}Edge`, { description: `One ${what} of a page, with its cursor` })
  class Edge {
    @Field(() => String, { description: `Where this ${what} sits in the list: pass it as \`after\` to continue after it` })
    cursor!: string;

    @Field(() => node, { description: `The ${what}` })
    node!: T;
  }

  @ObjectType(`${name}Connection`, { description: `A page of ${what}s, with cursors to continue (Relay connection)` })
  class ConnectionType {
    @Field(() => [Edge], { description: `The ${what}s of this page, each with its cursor` })
    edges!: Edge[];

    @Field(() => [node], { description: `The ${what}s of this page (the edges' nodes)` })
    nodes!: T[];

    @Field(() => PageInfo, { description: 'Where this page sits and how to fetch the next one' })
    pageInfo!: PageInfo;
  }
  return ConnectionType as unknown as ClassType<Connection<T>>;
}

/** Descriptions of the two paging arguments, stating the connection's limits. */
export function pagingDescriptions(limits: PageLimits, what: string): { first: string; after: string } {
  return {
    first: `How many ${what}s to return (default ${limits.default}, at most ${limits.max})`,
    after: `Return the ${what}s after this cursor (a previous page's pageInfo.endCursor)`,
  };
}

/** The page size asked for, within the connection's limits. */
export function pageSize(first: number | null | undefined, limits: PageLimits, argument = 'first'): number {
  if (first === null || first === undefined) return limits.default;
  if (!Number.isInteger(first) || first < 0 || first > limits.max) {
    throw new ValidationFailedError(
      [{ loc: [argument], msg: `Input should be between 0 and ${limits.max} (the largest page)`, type: 'less_than_equal' }],
      `${argument} must be between 0 and ${limits.max}`,
    );
  }
  return first;
}

/**
 * Builds a page from rows fetched with one row more than `size` (the extra row says whether more follow), each
 * row's cursor from `cursorOf`.
 */
export function toConnection<Row, T>(
  rows: Row[],
  size: number,
  options: { cursorOf: (row: Row) => string; toNode: (row: Row) => T; after?: string | null },
): Connection<T> {
  const page = rows.slice(0, size);
  const edges = page.map((row) => ({ cursor: options.cursorOf(row), node: options.toNode(row) }));
  return {
    edges,
    nodes: edges.map((edge) => edge.node),
    pageInfo: {
      hasNextPage: rows.length > size,
      hasPreviousPage: Boolean(options.after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/**
 * A page of a list paged by position (any sort order, so no keyset): rows fetched from `offset` with one row more
 * than `size`; each row's cursor is the offset after it, so `after` resumes there.
 */
export function toOffsetConnection<Row, T>(rows: Row[], size: number, offset: number, options: { toNode: (row: Row) => T; after?: string | null }): Connection<T> {
  let position = offset;
  return toConnection(rows, size, { ...options, cursorOf: () => encodeCursor(++position) });
}

/** The offset an `after` cursor of a position-paged list encodes (0 without one); a foreign cursor is a 422 at `after`. */
export function offsetAfter(after: string | null | undefined): number {
  return decodeCursor(after, isOffset) ?? 0;
}

/** An opaque cursor for a position (a keyset tuple or an offset). */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * The position a cursor encodes, checked by `guard`; a cursor that is not one of ours is a VALIDATION_FAILED issue
 * at `after` (bad input, never a 500).
 */
export function decodeCursor<P>(cursor: string | null | undefined, guard: (value: unknown) => value is P, argument = 'after'): P | null {
  if (cursor === null || cursor === undefined || cursor === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    value = undefined;
  }
  if (!guard(value)) {
    throw new ValidationFailedError([{ loc: [argument], msg: 'Not a cursor of this list', type: 'value_error' }], `${argument} is not a cursor of this list`);
  }
  return value;
}

/** Guards for the usual positions. */
export const isOffset = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
export const isKeyset =
  (length: number) =>
  (value: unknown): value is (string | number)[] =>
    Array.isArray(value) && value.length === length && value.every((part) => typeof part === 'string' || typeof part === 'number');
