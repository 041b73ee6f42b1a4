import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { connectDatabase, type DatabaseConnection } from '../../db/connection.js';
import { deadLetterRecords } from '../../db/poisoned-records.js';
import { createLogger } from '../../logger.js';
import { migrateEvents, PlatformEventConsumer, PlatformEventStream, publishEvent, publishEvents, type PlatformEvent } from '../index.js';

/**
 * An event the consumer's database can never store (SQLSTATE class 22: NUL in text, a number out of range, …) must
 * not stop the consumer for good: it is dead-lettered and passed over, and the events after it are applied. A
 * failure of the database itself is retried.
 */
let db: DatabaseConnection;
let stream: PlatformEventStream;
const logger = createLogger({ level: 'silent' });

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

class RecordingConsumer extends PlatformEventConsumer {
  readonly name = 'poison-test-consumer';
  readonly applied: number[] = [];
  readonly passedOver: number[] = [];
  private transientFailures = 2;

  constructor() {
    super(stream, new Set(['POISON_TEST']), logger);
  }
  protected async loadCursor() {
    return undefined;
  }
  protected async apply(event: PlatformEvent) {
    const n = (event.payload as { n: number }).n;
    if (n === 2) throw Object.assign(new Error('value "4294967296" is out of range for type integer'), { code: '22003' });
    if (n === 3 && this.transientFailures-- > 0) throw new Error('Connection terminated unexpectedly');
    this.applied.push(n);
  }
  protected async passOver(event: PlatformEvent) {
    this.passedOver.push((event.payload as { n: number }).n);
  }
}

it('dead-letters and passes over an event the database can never store, retries a database failure, and goes on', async () => {
  const before = (await deadLetterRecords.get()).values.find((value) => value.labels.writer === 'poison-test-consumer')?.value ?? 0;
  for (const n of [1, 2, 3, 4]) await publishEvent(db.root, { type: 'POISON_TEST', entity: 'team', project: 'p', author: 'me', payload: { n } });
  const consumer = new RecordingConsumer();
  await consumer.start();
  try {
    const deadline = Date.now() + 15_000;
    while (consumer.applied.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(consumer.applied).toEqual([1, 3, 4]);
    expect(consumer.passedOver).toEqual([2]);
    const after = (await deadLetterRecords.get()).values.find((value) => value.labels.writer === 'poison-test-consumer')?.value ?? 0;
    expect(after - before).toBe(1);
  } finally {
    await consumer.stop();
  }
});

/** A consumer of frequent events: applies what it reads together in one go (applyBatch). */
class BatchingConsumer extends PlatformEventConsumer {
  readonly name = 'batching-test-consumer';
  readonly batches: number[][] = [];
  readonly alone: number[] = [];
  readonly passedOver: number[] = [];

  constructor() {
    super(stream, new Set(['BATCH_TEST']), logger);
  }
  protected async loadCursor() {
    return undefined;
  }
  protected override async applyBatch(events: PlatformEvent[]) {
    const ns = events.map((event) => (event.payload as { n: number }).n);
    if (ns.includes(-1)) throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    this.batches.push(ns);
  }
  protected async apply(event: PlatformEvent) {
    const n = (event.payload as { n: number }).n;
    if (n === -1) throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    this.alone.push(n);
  }
  protected async passOver(event: PlatformEvent) {
    this.passedOver.push((event.payload as { n: number }).n);
  }
}

it('applies a backlog in batches, and a batch holding an event that can never be stored event by event, passing over just that one', async () => {
  const ns = Array.from({ length: 300 }, (_, i) => i + 1);
  await publishEvents(db.root, ns.map((n) => ({ type: 'BATCH_TEST', entity: 'team', project: 'p', author: 'me', payload: { n } })));
  const consumer = new BatchingConsumer();
  await consumer.start();
  try {
    const deadline = Date.now() + 10_000;
    while (consumer.batches.flat().length < 300 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(consumer.batches.flat()).toEqual(ns);
    // Pages of the consumer's batch size (100 rows read, other types' events among them), not a transaction per event.
    expect(consumer.batches.length).toBeLessThanOrEqual(4);
    expect(Math.max(...consumer.batches.map((batch) => batch.length))).toBe(100);
    expect(consumer.alone).toEqual([]);

    await publishEvents(db.root, [7001, -1, 7002].map((n) => ({ type: 'BATCH_TEST', entity: 'team', project: 'p', author: 'me', payload: { n } })));
    while (consumer.alone.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(consumer.alone).toEqual([7001, 7002]);
    expect(consumer.passedOver).toEqual([-1]);
  } finally {
    await consumer.stop();
  }
});
