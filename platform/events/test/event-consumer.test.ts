import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { connectDatabase, type DatabaseConnection } from '../../db/connection.js';
import { deadLetterRecords } from '../../db/poisoned-records.js';
import { createLogger } from '../../logger.js';
import { migrateEvents, PlatformEventConsumer, PlatformEventStream, publishEvent, type PlatformEvent } from '../index.js';

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
