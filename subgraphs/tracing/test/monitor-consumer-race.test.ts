import type { Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDatabase, type DatabaseConnection } from '../../../platform/db/connection.js';
import { migrateSchema } from '../../../platform/db/migrate.js';
import { TRACING_CALLS_ENDED_EVENT } from '../../../platform/events/contracts.js';
import { migrateEvents, PlatformEventStream, publishEvents, START_CURSOR, type PlatformEvent } from '../../../platform/events/index.js';
import { createLogger } from '../../../platform/logger.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { callStore, type CallEndRow, type CallStartRow } from '../call/call.store.js';
import type { TracingDatabase } from '../db/database.js';
import { tracingMigrations } from '../db/migrations/index.js';
import { MonitorConsumer } from '../monitor/monitor-consumer.js';
import { monitorStore } from '../monitor/monitor.store.js';

/**
 * Two processes run the monitor consumer on the same events. One may read a batch late — after another process
 * applied part of it and after a monitor was resumed — and then claims only the rest: it must record the scores of
 * the events it claimed, not of those the other process applied while the monitor was paused. (Scoring happens
 * before the claim, so a lagging process scores with the monitors as they are when it scores.) Real PostgreSQL; the
 * two consumers are driven batch by batch.
 */
class DrivenConsumer extends MonitorConsumer {
  apply_(events: PlatformEvent[]): Promise<void> {
    return this.applyBatch(events);
  }
}

let connection: DatabaseConnection;
let db: Kysely<TracingDatabase>;
let stream: PlatformEventStream;
const logger = createLogger({ level: 'silent' });
const PROJECT = 'team/race';

beforeAll(async () => {
  const url = await createTestDatabase();
  connection = connectDatabase(url, { max: 5 });
  await migrateEvents(connection.root);
  await migrateSchema(connection.root, 'tracing', tracingMigrations);
  db = connection.forSchema<TracingDatabase>('tracing') as Kysely<TracingDatabase>;
  stream = new PlatformEventStream(connection.root, url, logger);
});
afterAll(async () => {
  await stream?.close();
  await connection?.close();
});

it('records only the calls of the events it claimed, whatever it scored of events another process applied', async () => {
  const now = new Date().toISOString();
  const call = (id: string): CallStartRow & CallEndRow => ({
    project_id: PROJECT, id, trace_id: id, fallback_trace_id: id, parent_id: null, op_name: 'op', display_name: null, thread_id: null, turn_id: null,
    started_at: now, attributes: {}, inputs: {}, otel_dump: null, wb_user_id: 'u', wb_run_id: null, wb_run_step: null, kind: 'call',
    ended_at: now, output: 'x', summary: {}, exception: null,
  });
  await callStore.insertCompleted(db, [call('paused-1'), call('active-2')]);
  const monitor = await monitorStore.insert(db, {
    id: '01900000-0000-7000-8000-000000000001', project_id: PROJECT, name: 'm', op_names: [], attributes: {}, roots_only: false,
    sampling_rate: 1, scorer: { kind: 'length', min_length: 0 }, active: false, threshold: null, created_by: 'u',
  });
  await publishEvents(connection.root, [
    { type: TRACING_CALLS_ENDED_EVENT, entity: 'team', project: 'race', author: 'u', payload: { call_ids: ['paused-1'] } },
    { type: TRACING_CALLS_ENDED_EVENT, entity: 'team', project: 'race', author: 'u', payload: { call_ids: ['active-2'] } },
  ]);
  // Events are read once settled: older than every transaction still running on the server, which the other test
  // files' databases share (a transaction of theirs holds the read back for a moment).
  let events: PlatformEvent[] = [];
  for (const deadline = Date.now() + 10_000; events.length < 2 && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    ({ events } = await stream.read(START_CURSOR, 10, [TRACING_CALLS_ENDED_EVENT]));
  }
  expect(events).toHaveLength(2);

  const first = new DrivenConsumer(db, stream, logger, undefined);
  const lagging = new DrivenConsumer(db, stream, logger, undefined);
  // The first process applies the first event while the monitor is paused: nothing to score.
  await first.apply_([events[0]!]);
  await monitorStore.update(db, PROJECT, monitor.id, { active: true });
  // The lagging one reads both, scores both with the monitor now active, and claims only the second.
  await lagging.apply_(events);

  const results = await db.selectFrom('monitor_results').select(['call_id', 'outcome']).where('monitor_id', '=', monitor.id).execute();
  expect(results).toEqual([{ call_id: 'active-2', outcome: 'scored' }]);
  const feedback = await db.selectFrom('feedback').select('weave_ref').where('project_id', '=', PROJECT).execute();
  expect(feedback.map((row) => row.weave_ref)).toEqual([`weave:///${PROJECT}/call/active-2`]);
});
