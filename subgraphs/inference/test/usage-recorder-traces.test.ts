import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDatabase, type DatabaseConnection } from '../../../platform/db/connection.js';
import { createLogger } from '../../../platform/logger.js';
import { createTestDatabase } from '../../../test/support/database.js';
import type { InferenceDatabase } from '../db/database.js';
import type { CompletionTrace } from '../tracing/completion-trace.js';
import { UsageRecorder } from '../usage/usage-recorder.js';

/**
 * Traced completions carry their messages and output. Under load they must not wait for the flush interval (a
 * second by default) in memory: a full batch (100) is written at once, in one sink call; what is short of a batch
 * waits for the interval (or an explicit flush), as usage records do.
 */
let db: DatabaseConnection;
beforeAll(async () => {
  db = connectDatabase(await createTestDatabase(), { max: 3 });
});
afterAll(async () => {
  await db?.close();
});

const trace = (n: number): CompletionTrace => ({
  entity: 'team',
  project: 'p',
  author: 'alice',
  authorId: 'user-1',
  call: {
    id: `call-${n}`,
    trace_id: `trace-${n}`,
    op_name: 'inference.chat.completions/m',
    started_at: new Date(0).toISOString(),
    ended_at: new Date(0).toISOString(),
    inputs: { n },
    output: null,
    summary: { usage: {} },
    attributes: {},
    exception: null,
  },
});

it('writes a full batch of traces at once, and the rest at the next flush', async () => {
  const batches: number[][] = [];
  const sink = async (_db: unknown, traces: CompletionTrace[]) => {
    batches.push(traces.map((written) => written.call.inputs.n as number));
  };
  // An interval far beyond the test: only a full batch can cause a write.
  const recorder = new UsageRecorder(db.forSchema<InferenceDatabase>('inference'), createLogger({ level: 'silent' }), 600_000, sink);
  try {
    for (let n = 0; n < 100; n++) recorder.recordTrace(trace(n));
    await expect.poll(() => batches.length, { timeout: 5_000 }).toBe(1);
    expect(batches[0]).toEqual(Array.from({ length: 100 }, (_, n) => n));
    for (let n = 100; n < 150; n++) recorder.recordTrace(trace(n));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(batches).toHaveLength(1); // the 50 short of a batch wait for the interval
    await recorder.flush();
    expect(batches.slice(1)).toEqual([Array.from({ length: 50 }, (_, n) => 100 + n)]);
  } finally {
    await recorder.stop();
  }
});
