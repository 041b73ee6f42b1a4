import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { engineHandled, publishUnwatchedEvents, TEST_ENV } from './helpers.js';

/**
 * When the automation engine fails to handle a batch (its database connection lost, a statement cancelled), it resumes
 * from its stored cursor. It used to hang instead when the failure came while its queue was full: the reader waited
 * for room that nobody would make any more, so no automation fired again (and stopping the platform waited forever).
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
});
afterAll(async () => {
  await platform?.close();
});

it('resumes after a failed batch, also when its queue was full at the time', async () => {
  await engineHandled(platform, await publishUnwatchedEvents(platform, 5));

  // Hold the engine's cursor table: its next batch waits for the lock while its reader fills the queue (200 events).
  // A table lock, not a row lock: locking a row would give this transaction an id, and the outbox holds back the
  // events committed after it until it ends.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = platform.db.root.transaction().execute(async (trx) => {
    await sql`lock table automations.engine_cursors in exclusive mode`.execute(trx);
    locked();
    await released;
  });
  let last: number;
  try {
    await isLocked;
    last = await publishUnwatchedEvents(platform, 1_000);
    // The engine's statement waits for the lock; meanwhile its reader fills the queue (200 of the 1 000 events).
    let waiting: number | undefined;
    for (let waited = 0; waited < 10_000 && waiting === undefined; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { rows } = await sql<{ pid: number }>`
        select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like '%engine_cursors%'`.execute(platform.db.root);
      waiting = rows[0]?.pid;
    }
    expect(waiting).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The statement is cancelled: the batch fails.
    const { rows } = await sql<{ cancelled: boolean }>`select pg_cancel_backend(${waiting}::int) as cancelled`.execute(platform.db.root);
    expect(rows[0]?.cancelled).toBe(true);
  } finally {
    release();
    await holder;
  }

  // Resumed from its stored cursor: every event handled.
  await engineHandled(platform, last, 15_000);
}, 40_000);
