import { sql, type Kysely, type RawNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { connectDatabase, type DatabaseConnection } from '../../../platform/db/connection.js';
import { migrateSchema } from '../../../platform/db/migrate.js';
import {
  INFERENCE_COMPLETION_EVENT,
  INFERENCE_COMPLETIONS_EVENT,
  type CompletedCallRecord,
  type InferenceCompletionPayload,
  type InferenceCompletionsPayload,
} from '../../../platform/events/contracts.js';
import { migrateEvents, PlatformEventStream, publishEvents } from '../../../platform/events/index.js';
import { createLogger } from '../../../platform/logger.js';
import type { TracingDatabase } from '../db/database.js';
import { tracingMigrations } from '../db/migrations/index.js';
import { InferenceCallRecorder } from '../inference-calls/inference-call-recorder.js';

/**
 * Traced inference completions arrive as platform events, hundreds a second under load: the recorder must write
 * what it reads together in one statement (not a transaction and two writes per call), and two processes running
 * it on one database must still record each call once.
 */
let db: DatabaseConnection;
const streams: PlatformEventStream[] = [];
const recorders: InferenceCallRecorder[] = [];
const logger = createLogger({ level: 'silent' });
/** Statements that wrote tracing.calls, by either recorder. */
let callWrites = 0;
/** The parameters those statements were sent. */
const callWriteParameters: string[] = [];

beforeAll(async () => {
  const url = await createTestDatabase();
  db = connectDatabase(url, { max: 10 });
  await migrateEvents(db.root);
  await migrateSchema(db.root, 'tracing', tracingMigrations);
  const tracing = db.forSchema<TracingDatabase>('tracing').withPlugin({
    transformQuery: ({ node }) => {
      if (node.kind === 'RawNode' && (node as RawNode).sqlFragments.join('?').includes('into tracing.calls')) {
        callWrites++;
        callWriteParameters.push(JSON.stringify(node));
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  }) as Kysely<TracingDatabase>;
  for (let process = 0; process < 2; process++) {
    const stream = new PlatformEventStream(db.root, url, logger);
    streams.push(stream);
    const recorder = new InferenceCallRecorder(tracing, stream, logger);
    recorders.push(recorder);
  }
});
afterAll(async () => {
  for (const recorder of recorders) await recorder.stop();
  for (const stream of streams) await stream.close();
  await db?.close();
});

const AUTHOR_ID = '00000000-0000-0000-0000-000000000001';

const call = (n: number): CompletedCallRecord => {
  const at = new Date(Date.UTC(2026, 10, 27, 10, 0, 0, n)).toISOString();
  return {
    id: `completion-${n}`,
    trace_id: `trace-${n}`,
    op_name: 'inference.chat.completions/bench',
    started_at: at,
    ended_at: at,
    inputs: { model: 'bench', messages: [{ role: 'user', content: `hello ${n}` }] },
    output: { role: 'assistant', content: `answer ${n}` },
    summary: { usage: { bench: { requests: 1, prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } },
    attributes: { trellis: { source: 'inference' } },
    exception: null,
  };
};

type NewEvent = { type: string; entity: string; project: string; author: string; payload: Record<string, unknown> };

/** What the inference subgraph publishes: one event for a batch of a project's completions. */
const completions = (calls: CompletedCallRecord[], project: string): NewEvent => {
  const payload: InferenceCompletionsPayload = { author_id: AUTHOR_ID, calls };
  return { type: INFERENCE_COMPLETIONS_EVENT, entity: 'team-a', project, author: 'alice', payload: payload as unknown as Record<string, unknown> };
};

/** What earlier versions published, one event per completion (still in the outbox after an upgrade). */
const completionOfEarlierVersion = (record: CompletedCallRecord, project: string): NewEvent => {
  const payload: InferenceCompletionPayload = { author_id: AUTHOR_ID, call: record };
  return { type: INFERENCE_COMPLETION_EVENT, entity: 'team-a', project, author: 'alice', payload: payload as unknown as Record<string, unknown> };
};

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('the inference call recorder, run by two processes on one database', () => {
  it('records a backlog of 400 completions of two projects as 400 calls, each once, in a few statements', async () => {
    // A backlog written by four flushes of the inference subgraph (an event per project each), and 20 completions
    // published one event each by an earlier version; then both recorders start.
    for (let batch = 0; batch < 4; batch++) {
      const numbers = range(batch * 95, 95);
      await publishEvents(db.root, [
        completions(numbers.filter((n) => n % 2 === 0).map(call), 'even'),
        completions(numbers.filter((n) => n % 2 === 1).map(call), 'odd'),
      ]);
    }
    await publishEvents(db.root, range(380, 20).map((n) => completionOfEarlierVersion(call(n), n % 2 === 0 ? 'even' : 'odd')));
    await Promise.all(recorders.map((recorder) => recorder.start()));
    const count = async () => (await sql<{ n: number }>`select count(*)::int as n from tracing.calls`.execute(db.root)).rows[0]!.n;
    await expect.poll(count, { timeout: 15_000 }).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a late duplicate would show now
    expect(await count()).toBe(400);
    const { rows } = await sql<{ project_id: string; n: number; users: number }>`
      select project_id, count(*)::int as n, count(distinct wb_user_id)::int as users from tracing.calls group by project_id order by project_id`.execute(db.root);
    expect(rows).toEqual([
      { project_id: 'team-a/even', n: 200, users: 1 },
      { project_id: 'team-a/odd', n: 200, users: 1 },
    ]);
    const one = await sql<{ output: unknown; ended_at: Date }>`select output, ended_at from tracing.calls where id = 'completion-7'`.execute(db.root);
    expect(one.rows[0]!.output).toEqual({ role: 'assistant', content: 'answer 7' });
    // One statement per page of events, not one per call or event; the other process may read the same pages and
    // find them claimed.
    expect(callWrites).toBeLessThanOrEqual(4);
    // The payloads are read inside the database: no message or output is sent back to it as a parameter.
    expect(callWriteParameters.join('\n')).not.toMatch(/hello \d|answer \d/);
  });

  it('stores each field of a completion as its call, one call for a completion published twice, and dead-letters only the call the database cannot store', async () => {
    const failed = call(1000);
    Object.assign(failed, { output: null, exception: 'upstream timed out', trace_id: 'trace-of-failed', started_at: '2026-11-27T10:00:00.000Z', ended_at: '2026-11-27T10:00:01.250Z' });
    const unstorable = { ...call(1001), started_at: 'not a date' };
    const batch = completions([failed, unstorable, call(1002)], 'fields');
    await publishEvents(db.root, [batch, batch, completionOfEarlierVersion(call(1003), 'fields'), completionOfEarlierVersion(call(1003), 'fields')]);

    const ids = async () =>
      (await sql<{ id: string }>`select id from tracing.calls where project_id = 'team-a/fields' order by id`.execute(db.root)).rows.map((row) => row.id);
    await expect.poll(ids, { timeout: 15_000 }).toEqual(['completion-1000', 'completion-1002', 'completion-1003']);
    const { rows } = await sql<Record<string, unknown>>`
      select trace_id, op_name, started_at, ended_at, inputs, output, summary, attributes, exception, wb_user_id, kind, parent_id
      from tracing.calls where project_id = 'team-a/fields' and id = 'completion-1000'`.execute(db.root);
    expect(rows[0]).toEqual({
      trace_id: 'trace-of-failed',
      op_name: 'inference.chat.completions/bench',
      started_at: new Date('2026-11-27T10:00:00.000Z'),
      ended_at: new Date('2026-11-27T10:00:01.250Z'),
      inputs: failed.inputs,
      output: null,
      summary: failed.summary,
      attributes: failed.attributes,
      exception: 'upstream timed out',
      wb_user_id: '00000000-0000-0000-0000-000000000001',
      kind: 'call',
      parent_id: null,
    });
  });
});
