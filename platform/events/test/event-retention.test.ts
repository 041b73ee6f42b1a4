import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { connectDatabase, type DatabaseConnection } from '../../db/connection.js';
import { RetentionWorker } from '../../db/retention-worker.js';
import { createLogger } from '../../logger.js';
import { INFERENCE_COMPLETIONS_EVENT, PRUNED_ONCE_CONSUMED_EVENT_TYPES } from '../contracts.js';
import {
  eventRetentionPasses,
  migrateEvents,
  PlatformEventConsumer,
  PlatformEventStream,
  publishEvents,
  reportConsumerPosition,
  type EventRetention,
  type PlatformEvent,
} from '../index.js';

/**
 * The event log keeps nothing forever that nobody needs: the traced completions (payloads of whole requests) go as
 * soon as their consumer recorded them, everything goes once older than the event retention; but never an event a
 * durable consumer of its type has not applied yet. Deletion runs in batches of the configured size.
 */
let db: DatabaseConnection;
let stream: PlatformEventStream;
const logger = createLogger({ level: 'silent' });
const BATCH = 7;

beforeAll(async () => {
  const url = await createTestDatabase();
  db = connectDatabase(url, { max: 5 });
  await migrateEvents(db.root);
  stream = new PlatformEventStream(db.root, url, logger);
});
afterAll(async () => {
  await stream?.close();
  await db?.close();
});
beforeEach(async () => {
  await sql`truncate platform_events.events, platform_events.consumer_positions`.execute(db.root);
});

const sweep = (retention: EventRetention) =>
  new RetentionWorker('event-retention-test', eventRetentionPasses(db.root, retention), { intervalMs: 3_600_000, batchSize: BATCH, pauseMs: 1 }, logger).sweep();

async function publish(type: string, count: number, from = 0): Promise<void> {
  await publishEvents(
    db.root,
    Array.from({ length: count }, (_, i) => ({ type, entity: 'team', project: 'p', author: 'me', payload: { n: from + i } })),
  );
}

/** The events left, as `type:n`, in stream order. */
async function remaining(): Promise<string[]> {
  const { rows } = await sql<{ type: string; n: number }>`select type, (payload->>'n')::int as n from platform_events.events order by tx_id, id`.execute(db.root);
  return rows.map((row) => `${row.type}:${row.n}`);
}

async function cursorOf(type: string, n: number): Promise<string> {
  const { rows } = await sql<{ cursor: string }>`
    select tx_id::text || '.' || id as cursor from platform_events.events where type = ${type} and (payload->>'n')::int = ${n}`.execute(db.root);
  return rows[0]!.cursor;
}

async function age(type: string, days: number, ns: number[]): Promise<void> {
  await sql`update platform_events.events set created_at = now() - make_interval(days => ${days})
    where type = ${type} and (payload->>'n')::int = any(${ns}::int[])`.execute(db.root);
}

/** A durable consumer of the traced completions that applies every event it reads. */
class CompletionsConsumer extends PlatformEventConsumer {
  readonly name = 'retention-test-recorder';
  readonly applied: number[] = [];
  constructor() {
    super(stream, new Set([INFERENCE_COMPLETIONS_EVENT]), logger);
  }
  protected async loadCursor() {
    return undefined;
  }
  protected async apply(event: PlatformEvent) {
    this.applied.push((event.payload as { n: number }).n);
  }
  protected async passOver() {}
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

it('deletes the traced completions once their consumer applied them, in batches, and nothing else', async () => {
  await publish(INFERENCE_COMPLETIONS_EVENT, 25);
  await publish('OTHER', 3);
  // Nobody consumes them yet: kept (the tracing subgraph may not have started yet).
  expect(await sweep({ days: undefined, prunedOnceConsumed: PRUNED_ONCE_CONSUMED_EVENT_TYPES })).toEqual({ deleted: 0, batches: 0 });

  const consumer = new CompletionsConsumer();
  await consumer.start();
  try {
    // Registered before it read anything: nothing applied, nothing deleted.
    expect((await sweep({ days: undefined, prunedOnceConsumed: PRUNED_ONCE_CONSUMED_EVENT_TYPES })).deleted).toBe(0);
    await expect.poll(() => consumer.applied.length, { timeout: 10_000 }).toBe(25);
  } finally {
    await consumer.stop(); // reports where it got to
  }
  await publish(INFERENCE_COMPLETIONS_EVENT, 2, 100); // published after it stopped: not applied, kept

  const result = await sweep({ days: undefined, prunedOnceConsumed: PRUNED_ONCE_CONSUMED_EVENT_TYPES });
  expect(result.deleted).toBe(25);
  expect(result.batches).toBe(Math.ceil(25 / BATCH) + (25 % BATCH === 0 ? 1 : 0));
  expect(await remaining()).toEqual(['OTHER:0', 'OTHER:1', 'OTHER:2', `${INFERENCE_COMPLETIONS_EVENT}:100`, `${INFERENCE_COMPLETIONS_EVENT}:101`]);
});

it('keeps the completions a second consumer of the type has not applied yet', async () => {
  await publish(INFERENCE_COMPLETIONS_EVENT, 10);
  await reportConsumerPosition(db.root, { consumer: 'ahead', types: [INFERENCE_COMPLETIONS_EVENT], cursor: await cursorOf(INFERENCE_COMPLETIONS_EVENT, 9) });
  await reportConsumerPosition(db.root, { consumer: 'behind', types: [INFERENCE_COMPLETIONS_EVENT, 'OTHER'], cursor: await cursorOf(INFERENCE_COMPLETIONS_EVENT, 3) });
  expect((await sweep({ days: undefined, prunedOnceConsumed: PRUNED_ONCE_CONSUMED_EVENT_TYPES })).deleted).toBe(4);
  expect(await remaining()).toEqual(range(4, 6).map((n) => `${INFERENCE_COMPLETIONS_EVENT}:${n}`));
});

it('deletes events older than the retention in batches, except those a consumer of their type has not applied', async () => {
  await publish('UNWATCHED', 20); // no durable consumer: goes by age alone
  await publish('WATCHED', 10);
  await publish('UNWATCHED', 2, 100); // recent
  await age('UNWATCHED', 31, range(0, 20));
  await age('WATCHED', 31, range(0, 10));
  // The consumer of WATCHED applied up to its 6th event only.
  await reportConsumerPosition(db.root, { consumer: 'watcher', types: ['WATCHED'], cursor: await cursorOf('WATCHED', 5) });

  const result = await sweep({ days: 30, prunedOnceConsumed: [] });
  expect(result.deleted).toBe(26);
  expect(result.batches).toBe(Math.ceil(26 / BATCH));
  expect(await remaining()).toEqual([...range(6, 4).map((n) => `WATCHED:${n}`), 'UNWATCHED:100', 'UNWATCHED:101']);

  // Without a retention, old events stay.
  await publish('UNWATCHED', 3, 200);
  await age('UNWATCHED', 400, range(200, 3));
  expect((await sweep({ days: undefined, prunedOnceConsumed: [] })).deleted).toBe(0);
});
