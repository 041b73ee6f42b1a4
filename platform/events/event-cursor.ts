import { sql, type ColumnType, type Kysely, type Transaction } from 'kysely';
import { parseCursor } from './event.js';

/** Where each platform-event consumer of a subgraph has got to: the same table in every subgraph's schema. */
export interface EventCursorsTable {
  consumer: string;
  cursor: string;
  updated_at: ColumnType<Date, Date | undefined, Date | undefined>;
}

export interface EventCursorsDatabase {
  event_cursors: EventCursorsTable;
}

/** The cursor `consumer` stored last, if any (where its PlatformEventConsumer resumes). */
export async function loadEventCursor<DB extends EventCursorsDatabase>(db: Kysely<DB>, consumer: string): Promise<string | undefined> {
  const cursors = db as unknown as Kysely<EventCursorsDatabase>; // see claimEventCursor
  return (await cursors.selectFrom('event_cursors').select('cursor').where('consumer', '=', consumer).executeTakeFirst())?.cursor;
}

/** Whether event cursor `a` comes after `b` (cursors order by transaction id, then event id). */
function isCursorAfter(a: string, b: string): boolean {
  const x = parseCursor(a);
  const y = parseCursor(b);
  if (!x || !y) return true;
  return x.txId !== y.txId ? x.txId > y.txId : x.id > y.id;
}

/**
 * Moves `consumer`'s stored cursor to `cursor` under a row lock, in the caller's transaction; false when the cursor is
 * already there or past it — another process consuming the same events applied this one first, and the caller must
 * not apply it again. Called first in the transaction that applies the event, this makes a consumer exactly-once
 * however many processes run it (each waits for the row while another applies an event).
 */
export async function claimEventCursor<DB extends EventCursorsDatabase>(transaction: Transaction<DB>, consumer: string, cursor: string): Promise<boolean> {
  return (await claimEvents(transaction, consumer, [{ cursor }])).length > 0;
}

/**
 * claimEventCursor for a batch (events in stream order): moves the stored cursor to the last of them and resolves
 * with those after the cursor stored before — the ones this transaction must apply; none when another process got
 * there first.
 */
export async function claimEvents<DB extends EventCursorsDatabase, E extends { cursor: string }>(
  transaction: Transaction<DB>,
  consumer: string,
  events: readonly E[],
): Promise<E[]> {
  const last = events.at(-1);
  if (!last) return [];
  // Kysely's database type is invariant: a subgraph's transaction is not a Kysely<EventCursorsDatabase>, although
  // its database has that table (the constraint on DB says so).
  const trx = transaction as unknown as Kysely<EventCursorsDatabase>;
  const lockStored = () => trx.selectFrom('event_cursors').select('cursor').where('consumer', '=', consumer).forUpdate().executeTakeFirst();
  let stored = await lockStored();
  if (!stored) {
    // The consumer's first claim ever (a row to lock: concurrent first claims both insert, one does nothing).
    await trx.insertInto('event_cursors').values({ consumer, cursor: '0.0' }).onConflict((conflict) => conflict.column('consumer').doNothing()).execute();
    stored = (await lockStored())!;
  }
  const fresh = events.filter((event) => isCursorAfter(event.cursor, stored.cursor));
  if (fresh.length > 0) {
    await trx.updateTable('event_cursors').set({ cursor: last.cursor, updated_at: sql<Date>`now()` }).where('consumer', '=', consumer).execute();
  }
  return fresh;
}
