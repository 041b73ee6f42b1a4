import { sql } from 'kysely';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseConnection } from '../../db/connection.js';
import { createLogger } from '../../logger.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { readSettled, settledCursor } from '../../../test/support/events.js';
import { eventRows, migrateEvents, PlatformEventStream, publishEvent, publishEvents, START_CURSOR, type PlatformEvent } from '../index.js';

let db: DatabaseConnection;
let stream: PlatformEventStream;
let url: string;

beforeAll(async () => {
  url = await createTestDatabase();
  db = connectDatabase(url, { max: 5 });
  await migrateEvents(db.root);
  stream = new PlatformEventStream(db.root, url, createLogger({ level: 'silent' }));
});
afterAll(async () => {
  await stream?.close();
  await db?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (n: number) => ({ type: 'TEST', entity: 'team', project: 'p', author: 'me', payload: { n } });

/** Runs `work` in a transaction that stays open until `release` resolves. */
function openTransaction(work: (trx: any) => Promise<void>, release: Promise<void>): Promise<void> {
  return db.root.transaction().execute(async (trx) => {
    await work(trx);
    await release;
  });
}

async function take(iterator: AsyncIterator<PlatformEvent>, count: number, timeoutMs = 5000): Promise<PlatformEvent[]> {
  const out: PlatformEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    const next = await Promise.race([
      iterator.next(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`only ${out.length} of ${count} events`)), deadline - Date.now())),
    ]);
    out.push(next.value);
  }
  return out;
}

describe('platform event stream', () => {
  it('holds back an event committed behind a still-open older transaction, then delivers both in commit-safe order', async () => {
    const start = await settledCursor(stream);
    let releaseA!: () => void;
    const aHolds = new Promise<void>((resolve) => (releaseA = resolve));
    let aInserted!: () => void;
    const aReady = new Promise<void>((resolve) => (aInserted = resolve));
    // A takes the lower event id but commits last.
    const a = openTransaction(async (trx) => {
      await publishEvent(trx, event(1));
      aInserted();
    }, aHolds);
    await aReady;
    await db.root.transaction().execute((trx) => publishEvent(trx, event(2)).then(() => undefined));

    const whileOpen = await stream.read(start);
    expect(whileOpen.events).toEqual([]);
    expect(whileOpen.heldBack).toBe(true);

    releaseA();
    await a;
    // Both arrive, in order, once every older transaction on the server has ended (readSettled).
    const after = await readSettled(stream, start);
    expect(after.events.map((e) => e.payload.n)).toEqual([1, 2]);
    expect(after.heldBack).toBe(false);
  });

  it('is held back by a transaction open in another database of the same server, and delivered once it ends', async () => {
    const start = await settledCursor(stream);
    const other = connectDatabase(await createTestDatabase('other'), { max: 1 });
    try {
      let release!: () => void;
      const holds = new Promise<void>((resolve) => (release = resolve));
      let began!: () => void;
      const hasXid = new Promise<void>((resolve) => (began = resolve));
      const elsewhere = other.root.transaction().execute(async (trx) => {
        await sql`select pg_current_xact_id()`.execute(trx);
        began();
        await holds;
      });
      await hasXid;
      await db.root.transaction().execute((trx) => publishEvent(trx, event(5)).then(() => undefined));
      const whileOpen = await stream.read(start);
      expect(whileOpen.events).toEqual([]);
      expect(whileOpen.heldBack).toBe(true);
      release();
      await elsewhere;
      const after = await readSettled(stream, start);
      expect(after.events.map((e) => e.payload.n)).toEqual([5]);
    } finally {
      await other.close();
    }
  });

  it('replays after a cursor, then follows new commits live (LISTEN/NOTIFY), resuming exactly after the last cursor', async () => {
    const start = await settledCursor(stream);
    await db.root.transaction().execute((trx) => publishEvent(trx, event(10)).then(() => undefined));
    const iterator = stream.subscribe(start);
    const [replayed] = await take(iterator, 1);
    expect(replayed!.payload.n).toBe(10);

    const started = performance.now();
    await db.root.transaction().execute((trx) => publishEvent(trx, event(11)).then(() => undefined));
    const [live] = await take(iterator, 1);
    expect(live!.payload.n).toBe(11);
    expect(performance.now() - started).toBeLessThan(1000);
    await iterator.return?.();

    // Rolled-back events never appear; a resumed subscription starts right after the cursor it was given.
    await db.root
      .transaction()
      .execute(async (trx) => {
        await publishEvent(trx, event(12));
        throw new Error('rollback');
      })
      .catch(() => undefined);
    await db.root.transaction().execute((trx) => publishEvent(trx, event(13)).then(() => undefined));
    const resumed = stream.subscribe(live!.cursor);
    const [next] = await take(resumed, 1);
    expect(next!.payload.n).toBe(13);
    await resumed.return?.();
  });

  it('orders by transaction id numerically (a text order would put "10" before "9")', async () => {
    const fresh = await createTestDatabase();
    const other = connectDatabase(fresh, { max: 2 });
    try {
      await migrateEvents(other.root);
      // Transaction ids far below the server's current ones, so every row counts as settled.
      for (const [txId, n] of [[9, 1], [10, 2], [3, 0]] as const) {
        await other.root
          .insertInto('platform_events.events')
          .values({ tx_id: String(txId), type: 'TEST', entity: 'team', author: 'me', payload: JSON.stringify({ n }) })
          .execute();
      }
      const reader = new PlatformEventStream(other.root, fresh, createLogger({ level: 'silent' }));
      const page = await reader.read(START_CURSOR);
      expect(page.events.map((e) => [e.cursor.split('.')[0], e.payload.n])).toEqual([['3', 0], ['9', 1], ['10', 2]]);
      expect((await reader.read(page.events[1]!.cursor)).events.map((e) => e.payload.n)).toEqual([2]);
      expect(await reader.latestCursor()).toBe(page.events[2]!.cursor);
      await reader.close();
    } finally {
      await other.close();
    }
  });

  it('publishes a batch of events with one statement, in the order given, and wakes a live subscriber once it commits', async () => {
    const start = await settledCursor(stream);
    const iterator = stream.subscribe(start);
    const statements: string[] = [];
    const ids = await db.root.transaction().execute((trx) => {
      // Counts every statement the batch runs in the writer's transaction.
      const counted = trx.withPlugin({
        transformQuery: ({ node }) => {
          statements.push(node.kind);
          return node;
        },
        transformResult: async ({ result }) => result,
      });
      return publishEvents(counted, [event(20), event(21), event(22)]);
    });
    expect(statements).toHaveLength(1); // the insert and the NOTIFY together, not two statements per event
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const received = await take(iterator, 3);
    expect(received.map((e) => e.payload.n)).toEqual([20, 21, 22]);
    expect(received.map((e) => e.id)).toEqual(ids);
    await iterator.return?.();
    expect(await publishEvents(db.root, [])).toEqual([]);
  });

  it('with types, reads only those types, in order, and wakes a subscriber only for commits of them', async () => {
    const start = await settledCursor(stream);
    await publishEvents(db.root, [event(30), { ...event(31), type: 'RARE' }, event(32), { ...event(33), type: 'RARE' }, event(34)]);
    const all = (await readSettled(stream, start)).events;
    expect(all.map((e) => e.payload.n)).toEqual([30, 31, 32, 33, 34]);

    const rare = await stream.read(start, 500, ['RARE']);
    expect(rare.events.map((e) => [e.type, e.payload.n, e.cursor])).toEqual([['RARE', 31, all[1]!.cursor], ['RARE', 33, all[3]!.cursor]]);
    expect(rare).toMatchObject({ cursor: all[3]!.cursor, full: false, heldBack: false });
    expect(await stream.read(start, 1, ['RARE', 'OTHER'])).toMatchObject({ events: [{ payload: { n: 31 } }], cursor: all[1]!.cursor, full: true });
    expect(await stream.read(all[3]!.cursor, 500, ['RARE'])).toEqual({ events: [], cursor: all[3]!.cursor, full: false, heldBack: false });
    // The database finds them through their own index, not by scanning the stream past the others.
    const plan = await db.root.transaction().execute(async (trx) => {
      // As on a large outbox, whatever this small table's statistics say.
      await sql`set local enable_seqscan = off`.execute(trx);
      return sql<{ 'QUERY PLAN': string }>`explain select id from platform_events.events as e
        where e.type = 'RARE' and (e.tx_id, e.id) > ('0'::xid8, 0::bigint) order by e.tx_id, e.id limit 100`.execute(trx);
    });
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('events_type_order');

    // For a consumer that reads the payloads inside the database: the same events, without them.
    const bare = await stream.read(start, 500, ['RARE'], { withoutPayloads: true });
    expect(bare.events.map((e) => [e.id, e.payload])).toEqual([[all[1]!.id, {}], [all[3]!.id, {}]]);
    const rows = await sql<{ id: string; payload: { n: number } }>`select id, payload from ${eventRows(bare.events.map((e) => e.id))} as e order by id`.execute(db.root);
    expect(rows.rows.map((row) => [Number(row.id), row.payload.n])).toEqual([[all[1]!.id, 31], [all[3]!.id, 33]]);

    // Live: a subscriber of RARE reads again only when a commit names RARE.
    const reads: (readonly string[] | undefined)[] = [];
    const read = stream.read.bind(stream);
    stream.read = (after, limit, types, options) => {
      reads.push(types);
      return read(after, limit, types, options);
    };
    try {
      const pages = stream.subscribePages(all[4]!.cursor, { types: ['RARE'], pageSize: 2 });
      const first = pages.next();
      await expect.poll(() => reads.length).toBe(1); // caught up, waiting
      for (let i = 0; i < 5; i++) await publishEvents(db.root, [event(40 + i)]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reads).toHaveLength(1); // five commits of other types woke it for nothing
      await publishEvents(db.root, [event(50), { ...event(51), type: 'RARE' }]);
      expect((await first).value.map((e: PlatformEvent) => e.payload.n)).toEqual([51]);
      await pages.return?.();
    } finally {
      stream.read = read;
    }
  });

  it('loses nothing when many writers commit concurrently while a subscriber follows', async () => {
    const start = await settledCursor(stream);
    const iterator = stream.subscribe(start);
    const writers = Array.from({ length: 8 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 25; i++) {
          await db.root.transaction().execute(async (trx) => {
            await publishEvent(trx, event(1000 + w * 100 + i));
            if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
          });
        }
      })(),
    );
    const received = await take(iterator, 200, 15_000);
    await Promise.all(writers);
    await iterator.return?.();
    expect(new Set(received.map((e) => e.payload.n)).size).toBe(200);
    const cursors = received.map((e) => e.cursor);
    expect(new Set(cursors).size).toBe(200);
    expect((await readSettled(stream, START_CURSOR)).events.length).toBeGreaterThanOrEqual(200);
  });

  it('keeps nothing per wait of a long-lived subscription (its stop signal is not raced on every wait)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const pages = stream.subscribePages(await settledCursor(stream), { types: ['WAIT_CHECK'] });
    // One event, one page, one wait of the subscription's loop.
    const round = async (n: number) => {
      await publishEvent(db.root, { ...event(n), type: 'WAIT_CHECK' });
      const page = await pages.next();
      expect(page.value.map((e: PlatformEvent) => e.payload.n)).toEqual([n]);
    };
    for (let n = 0; n < 1_000; n++) await round(n);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let n = 0; n < 3_000; n++) await round(n);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    await pages.return?.();
    // Racing each wait against the stop signal kept ≈ 600 bytes a wait until the subscription ended: ≈ 2 MB here
    // (without it ≈ 0.2–0.5 MB: code and caches still warming up).
    expect(grown).toBeLessThan(1_000_000);
  }, 30_000);

  it('with gatherMs, reads the events committed while it gathers as one page, and stops at once while gathering', async () => {
    const gathered = stream.subscribePages(await settledCursor(stream), { types: ['GATHER_CHECK'], gatherMs: 1_000 });
    const atOnce = stream.subscribePages(await settledCursor(stream), { types: ['GATHER_CHECK'] });
    const gatherCheck = (n: number) => ({ ...event(n), type: 'GATHER_CHECK' });
    const numbers = (page: IteratorResult<PlatformEvent[]>) => page.value.map((e: PlatformEvent) => e.payload.n);
    // A first event each has read: both are in their loops, waiting for the next notification.
    await publishEvent(db.root, gatherCheck(0));
    expect(numbers(await gathered.next())).toEqual([0]);
    expect(numbers(await atOnce.next())).toEqual([0]);

    const nextGathered = gathered.next();
    await publishEvent(db.root, gatherCheck(1));
    expect(numbers(await atOnce.next())).toEqual([1]);
    // Separate commits while the gathering subscriber waits: one page.
    await publishEvent(db.root, gatherCheck(2));
    await publishEvent(db.root, gatherCheck(3));
    expect(numbers(await nextGathered)).toEqual([1, 2, 3]);
    await atOnce.return?.();

    // Stopped while it gathers: it ends at once, not after the gathering time.
    const pending = gathered.next();
    await publishEvent(db.root, gatherCheck(4));
    await sleep(50);
    const started = Date.now();
    await gathered.return?.();
    expect(Date.now() - started).toBeLessThan(500);
    expect((await pending).done).toBe(true);
  });
});
