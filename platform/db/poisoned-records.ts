import { Counter } from 'prom-client';
import type { Logger } from '../logger.js';

/**
 * Background writers (usage records, traced completions, delivery attempts, event consumers) write records in
 * batches and retry a failed batch later. A record the database can never take (a string it cannot store, a
 * number out of range, a value nested too deep) must not hold back the records written with it: when a batch
 * fails with such an error, its records are written one by one, and those that still fail are dead-lettered
 * (logged and counted in `trellis_dead_letter_records_total{writer}`) instead of retried forever. A failure of
 * the database itself (connection lost, shutdown, overload) is no record's fault: the whole batch is kept.
 */

/** Records given up on, by writer. Registered on each HTTP server's /metrics registry (platform/http/metrics.ts). */
export const deadLetterRecords = new Counter({
  name: 'trellis_dead_letter_records_total',
  help: 'Records a background writer gave up on because the database can never store them (see the error log)',
  labelNames: ['writer'] as const,
  registers: [],
});

/**
 * PostgreSQL SQLSTATE classes that a record's own content causes: 22 data exception (NUL in text, an escape jsonb
 * rejects, a number out of range), 23 integrity constraint violation, 54 program limit exceeded (stack depth of a
 * deeply nested value). Everything else (08 connection, 40 rollback, 53 resources, 57 shutdown, 42 a bug in the
 * statement) would fail any record, so retrying the batch later is right.
 */
const RECORD_SQLSTATE_CLASSES = new Set(['22', '23', '54']);

/** Whether an error of writing records is due to their content (so another attempt can never succeed). */
export function isRecordError(error: unknown): boolean {
  // Serializing a record failed (a BigInt, a cycle, a string too long): before the database was even reached.
  if (error instanceof TypeError || error instanceof RangeError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && RECORD_SQLSTATE_CLASSES.has(code.slice(0, 2));
}

export interface DeadLetterOptions<T> {
  /** Label of the metric and the log line (`inference-usage`, `delivery-attempts`, …). */
  writer: string;
  logger: Logger;
  /** What the log line says about the record: identifiers, never payloads or credentials. */
  describe?(record: T): Record<string, unknown>;
}

/** Gives up on one record: an error log line naming it, and the counter. */
export function deadLetter<T>(record: T, error: unknown, options: DeadLetterOptions<T>): void {
  deadLetterRecords.inc({ writer: options.writer });
  options.logger.error(
    { err: error, writer: options.writer, record: options.describe?.(record) },
    'dead-lettered a record the database cannot store; the records written with it were kept',
  );
}

export interface IsolatingWriteOptions<T> extends DeadLetterOptions<T> {
  /** Writes records all or nothing (one statement or one transaction). */
  write(records: T[]): Promise<void>;
  /** Runs after a record is dead-lettered (e.g. to move a cursor past it); failing keeps the rest for retry. */
  afterDeadLetter?(record: T): Promise<void>;
}

/**
 * Writes a batch; when it fails because of some record, writes the records one at a time and dead-letters the
 * ones that fail alone. Resolves with the records still to be retried (empty when everything was written or
 * dead-lettered): all of them after a failure of the database itself, or the rest of the batch when the
 * database fails while records are written one by one.
 */
export async function writeBatchIsolating<T>(records: T[], options: IsolatingWriteOptions<T>): Promise<T[]> {
  if (records.length === 0) return [];
  try {
    await options.write(records);
    return [];
  } catch (error) {
    if (!isRecordError(error)) {
      options.logger.warn({ err: error, writer: options.writer, pending: records.length }, 'writing a batch failed; it will be retried');
      return records;
    }
    if (records.length === 1) return settleAlone(records, 0, error, options);
  }
  for (let index = 0; index < records.length; index++) {
    try {
      await options.write([records[index]!]);
    } catch (error) {
      const left = await settleAlone(records, index, error, options);
      if (left.length > 0) return left;
    }
  }
  return [];
}

/** After records[index] failed alone: dead-letter it (resolves []), or keep it and the rest for retry. */
async function settleAlone<T>(records: T[], index: number, error: unknown, options: IsolatingWriteOptions<T>): Promise<T[]> {
  const record = records[index]!;
  if (!isRecordError(error)) {
    options.logger.warn({ err: error, writer: options.writer, pending: records.length - index }, 'writing records failed; they will be retried');
    return records.slice(index);
  }
  deadLetter(record, error, options);
  if (options.afterDeadLetter) {
    try {
      await options.afterDeadLetter(record);
    } catch (after) {
      options.logger.warn({ err: after, writer: options.writer }, 'could not move past a dead-lettered record; the rest will be retried');
      return records.slice(index + 1);
    }
  }
  return [];
}
