import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDatabase, type DatabaseConnection } from '../../../platform/db/connection.js';
import { INFERENCE_COMPLETIONS_EVENT } from '../../../platform/events/contracts.js';
import { migrateEvents } from '../../../platform/events/index.js';
import { createTestDatabase } from '../../../test/support/database.js';
import type { CompletionTrace } from '../tracing/completion-trace.js';
import { publishCompletionEvents } from '../tracing/publish-completion-events.js';

/**
 * A flush of traced completions becomes one platform event per project and caller, carrying their calls in the order
 * they finished: the outbox takes a row per flush, not per completion, and no event mixes teams, projects or callers.
 */
let db: DatabaseConnection;
beforeAll(async () => {
  db = connectDatabase(await createTestDatabase(), { max: 2 });
  await migrateEvents(db.root);
});
afterAll(async () => {
  await db?.close();
});

const trace = (n: number, entity: string, project: string, author: string): CompletionTrace => ({
  entity,
  project,
  author,
  authorId: `id-of-${author}`,
  call: {
    id: `call-${n}`,
    trace_id: `trace-${n}`,
    op_name: 'inference.chat.completions/m',
    started_at: new Date(n).toISOString(),
    ended_at: new Date(n + 1).toISOString(),
    inputs: { model: 'm', messages: [{ role: 'user', content: `question ${n}` }] },
    output: { content: `answer ${n}` },
    summary: { usage: {} },
    attributes: {},
    exception: null,
  },
});

it('publishes a batch of completions as one event per team, project and caller, with their calls in order', async () => {
  await publishCompletionEvents(db.root, [
    trace(1, 'team-a', 'chat', 'alice'),
    trace(2, 'team-a', 'chat', 'bob'),
    trace(3, 'team-a', 'chat', 'alice'),
    trace(4, 'team-a', 'eval', 'alice'),
    trace(5, 'team-b', 'chat', 'alice'),
    trace(6, 'team-a', 'chat', 'alice'),
  ]);
  const { rows } = await sql<{ type: string; entity: string; project: string; author: string; payload: any }>`
    select type, entity, project, author, payload from platform_events.events order by id`.execute(db.root);
  expect(rows.map(({ type, entity, project, author, payload }) => ({ type, entity, project, author, authorId: payload.author_id, calls: payload.calls.map((call: any) => call.id) }))).toEqual([
    { type: INFERENCE_COMPLETIONS_EVENT, entity: 'team-a', project: 'chat', author: 'alice', authorId: 'id-of-alice', calls: ['call-1', 'call-3', 'call-6'] },
    { type: INFERENCE_COMPLETIONS_EVENT, entity: 'team-a', project: 'chat', author: 'bob', authorId: 'id-of-bob', calls: ['call-2'] },
    { type: INFERENCE_COMPLETIONS_EVENT, entity: 'team-a', project: 'eval', author: 'alice', authorId: 'id-of-alice', calls: ['call-4'] },
    { type: INFERENCE_COMPLETIONS_EVENT, entity: 'team-b', project: 'chat', author: 'alice', authorId: 'id-of-alice', calls: ['call-5'] },
  ]);
  expect(rows[0]!.payload.calls[1]).toEqual(trace(3, 'team-a', 'chat', 'alice').call);
});
