import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/database.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import type { InferenceServices } from '../../../subgraphs/inference/services.js';
import type { UsageRecord } from '../../../subgraphs/inference/usage/usage.store.js';
import { createLogger } from '../../logger.js';
import { findUnstorableInput, toStorableJson, toStorableText } from '../../storable-input.js';
import { connectDatabase, type DatabaseConnection } from '../connection.js';
import { deadLetterRecords, writeBatchIsolating } from '../poisoned-records.js';

const logger = createLogger({ level: 'silent' });
const deadLettered = async (writer: string) => (await deadLetterRecords.get()).values.find((value) => value.labels.writer === writer)?.value ?? 0;

describe('writeBatchIsolating', () => {
  let db: DatabaseConnection;

  beforeAll(async () => {
    db = connectDatabase(await createTestDatabase(), { max: 2 });
    await sql`create table records (name text not null, step integer not null, doc jsonb not null)`.execute(db.root);
  });
  afterAll(async () => {
    await db?.close();
  });

  interface Row {
    name: string;
    step: number;
    doc: unknown;
  }
  const insert = (rows: Row[]) =>
    db.root
      .insertInto('records' as never)
      .values(rows.map((row) => ({ ...row, doc: JSON.stringify(row.doc) })) as never)
      .execute()
      .then(() => undefined);
  const names = async () => (await sql<{ name: string }>`select name from records order by name`.execute(db.root)).rows.map((row) => row.name);

  it('writes the good records of a batch the database refused, and dead-letters the poisoned ones', async () => {
    const before = await deadLettered('unit-test');
    const batch: Row[] = [
      { name: 'a', step: 1, doc: {} },
      { name: 'nul\u0000', step: 1, doc: {} },
      { name: 'b', step: 2 ** 40, doc: {} },
      { name: 'c', step: 3, doc: { text: 'lone \ud800' } },
      { name: 'd', step: 4, doc: { ok: true } },
    ];
    const retry = await writeBatchIsolating(batch, { writer: 'unit-test', logger, write: insert, describe: (row) => ({ step: row.step }) });
    expect(retry).toEqual([]);
    expect(await names()).toEqual(['a', 'd']);
    expect((await deadLettered('unit-test')) - before).toBe(3);
  });

  it('keeps the whole batch for retry when the database itself fails, dead-lettering nothing', async () => {
    const before = await deadLettered('unit-test-down');
    const batch: Row[] = [{ name: 'x', step: 1, doc: {} }];
    const down = Object.assign(new Error('Connection terminated unexpectedly'), {});
    const refused = Object.assign(new Error('the database system is shutting down'), { code: '57P03' });
    for (const error of [down, refused]) {
      const retry = await writeBatchIsolating(batch, { writer: 'unit-test-down', logger, write: () => Promise.reject(error) });
      expect(retry).toEqual(batch);
    }
    expect(await deadLettered('unit-test-down')).toBe(before);
  });

  it('keeps the rest for retry when the database fails while records are written one by one', async () => {
    const poisoned = Object.assign(new Error('invalid byte sequence'), { code: '22021' });
    const down = new Error('Connection terminated unexpectedly');
    let calls = 0;
    const retry = await writeBatchIsolating([1, 2, 3], {
      writer: 'unit-test-partial',
      logger,
      // The batch and record 1 are refused for their content; then the database goes away.
      write: async () => {
        calls += 1;
        throw calls <= 2 ? poisoned : down;
      },
    });
    expect(retry).toEqual([2, 3]);
  });
});

describe('storable text', () => {
  it('finds NUL, lone surrogates and over-deep nesting with their path; paired surrogates are fine', () => {
    expect(findUnstorableInput({ a: ['ok', 'emoji \ud83d\ude00', { b: 'x\u0000' }] })).toEqual({ path: ['a', 2, 'b'], reason: 'nul_character' });
    expect(findUnstorableInput({ ['k\udc00']: 1 })).toEqual({ path: ['k\udc00'], reason: 'lone_surrogate' });
    expect(findUnstorableInput({ a: [[[]]] }, 3)).toEqual({ path: ['a', 0, 0], reason: 'too_deep' });
    expect(findUnstorableInput({ a: [[]] }, 3)).toBeUndefined();
    let deep: unknown = 'leaf';
    for (let level = 0; level < 1_000_000; level++) deep = [deep];
    expect(findUnstorableInput(deep)?.reason).toBe('too_deep');
    expect(findUnstorableInput({ file: Buffer.from([0, 0xd8]) })).toBeUndefined();
  });

  it('makes text and JSON from elsewhere storable with U+FFFD', () => {
    expect(toStorableText('a\u0000b\ud800c\ud83d\ude00')).toBe('a\ufffdb\ufffdc\ud83d\ude00');
    expect(JSON.parse(toStorableJson({ 'k\u0000': ['\udc00', 'ok'] }))).toEqual({ 'k\ufffd': ['\ufffd', 'ok'] });
    expect(toStorableJson({ plain: 'x', escaped: '\\u0000' })).toBe(JSON.stringify({ plain: 'x', escaped: '\\u0000' }));
  });
});

describe('the usage recorder', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { TRELLIS_INFERENCE_USAGE_FLUSH_MS: '600000' } });
  });
  afterAll(async () => {
    await platform?.close();
  });

  const record = (fields: Partial<UsageRecord>): UsageRecord => ({
    createdAt: new Date(), entity: 'trellis', project: 'poison', model: 'm', backend: null, deployment: null, apiKeyId: null, userId: null,
    endUser: null, stream: false, status: 200, errorCode: null, errorMessage: null, promptTokens: 1, completionTokens: 1, totalTokens: 2,
    latencyMs: 1, firstTokenMs: null, attempts: 1, requestId: null, ...fields,
  });

  it('writes the records batched with one the database cannot store, counts the dead letter and keeps nothing to retry', async () => {
    const { usage } = platform.subgraphs.get('inference')!.services as InferenceServices;
    // An upstream that reports absurd token counts (beyond the integer column), and text with NUL from an upstream error.
    usage.record(record({ requestId: 'before' }));
    usage.record(record({ requestId: 'poisoned', promptTokens: 2 ** 40 }));
    usage.record(record({ requestId: 'after', errorMessage: 'upstream said \u0000', endUser: 'x\ud800' }));
    await usage.flush();
    const rows = await sql<{ request_id: string; error_message: string | null; end_user: string | null }>`
      select request_id, error_message, end_user from inference.usage_records where project = 'poison' order by request_id`.execute(platform.db.root);
    expect(rows.rows).toEqual([
      { request_id: 'after', error_message: 'upstream said \ufffd', end_user: 'x\ufffd' },
      { request_id: 'before', error_message: null, end_user: null },
    ]);
    expect(usage.pending).toBe(0);
    const metrics = await (await platform.fetch('/metrics')).text();
    expect(metrics).toMatch(/trellis_dead_letter_records_total\{[^}]*writer="inference-usage"[^}]*\} [1-9]/);
  });
});
