/**
 * A platform event: one change that something may react to (an automation, a dashboard). Events are written by
 * the subgraph that made the change, in the same transaction (an outbox), and read in commit-safe order.
 *
 * `cursor` orders events the way they became visible: it is `<transaction id>.<event id>`, and readers only ever
 * see events whose transaction is older than every transaction still running, so an event that commits later can
 * never sort before one already handed out (see event-stream.ts).
 */
export interface PlatformEvent {
  id: number;
  cursor: string;
  type: string;
  /** Team (entity) that owns the changed thing. */
  entity: string;
  /** Project of the change, when it happened in (or originated from) a project. */
  project: string | null;
  /** Registry of the change, when it happened in a registry collection. */
  registry: string | null;
  /** Username of whoever made the change. */
  author: string;
  payload: Record<string, unknown>;
  createdAt: Date;
}

export type NewPlatformEvent = Pick<PlatformEvent, 'type' | 'entity' | 'author' | 'payload'> &
  Partial<Pick<PlatformEvent, 'project' | 'registry'>>;

/** The position before every event. */
export const START_CURSOR = '0.0';

export interface CursorPosition {
  txId: bigint;
  id: bigint;
}

export function parseCursor(cursor: string): CursorPosition | null {
  const match = /^(\d{1,20})\.(\d{1,20})$/.exec(cursor);
  if (!match) return null;
  return { txId: BigInt(match[1]!), id: BigInt(match[2]!) };
}

export function formatCursor(txId: bigint | string | number, id: bigint | string | number): string {
  return `${txId}.${id}`;
}

/**
 * The payload of the NOTIFY that wakes subscribers: the types of the events committed (comma-separated), so that a
 * subscriber of other types is not woken to find nothing. '' wakes every subscriber (a reconnect, a type that
 * cannot be listed).
 */
export function formatNotifiedTypes(types: Iterable<string>): string {
  const distinct = [...new Set(types)];
  return distinct.some((type) => type.includes(',') || type === '') ? '' : distinct.join(',');
}

/** The types a NOTIFY payload names; undefined when it names none (every subscriber is woken). */
export function parseNotifiedTypes(payload: string): string[] | undefined {
  return payload === '' ? undefined : payload.split(',');
}
