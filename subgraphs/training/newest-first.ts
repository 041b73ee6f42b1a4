import { sql, type RawBuilder } from 'kysely';
import { decodeCursor, encodeCursor } from '../../platform/graphql/connection.js';
import { isUuid } from './uuid.js';

/**
 * Keyset paging of the lists the graph shows newest first (models, jobs, trajectory logs): ordered by
 * `created_at desc, id desc`, a cursor holds the last row's exact creation time (microseconds, as text: a JS Date
 * would lose them and skip or repeat rows) and id.
 */
export type NewestFirstPosition = [createdAt: string, id: string];

const EXACT_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const isPosition = (value: unknown): value is NewestFirstPosition =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && EXACT_TIME.test(value[0]) && typeof value[1] === 'string' && isUuid(value[1]);

/** The select expression of a row's position (alias it `position`). */
export function positionOf(table: string): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(`${table}.created_at`)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/** The condition "after `position` in newest-first order". */
export function olderThan(table: string, position: NewestFirstPosition): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (${position[0]}::timestamptz, ${position[1]}::uuid)`;
}

export const encodePosition = (row: { position: string; id: string }): string => encodeCursor([row.position, row.id]);

/** The position an `after` cursor holds (null without one); a cursor of another list is a 422 at `after`. */
export const decodePosition = (after: string | null | undefined): NewestFirstPosition | null => decodeCursor(after, isPosition);
