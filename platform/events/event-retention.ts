import { sql, type Kysely } from 'kysely';
import type { PlatformConfig } from '../config.js';
import { retentionCutoff, RetentionWorker, type RetentionPass } from '../db/retention-worker.js';
import type { Logger } from '../logger.js';
import { consumerPositions, type ConsumerPosition } from './consumer-positions.js';
import { PRUNED_ONCE_CONSUMED_EVENT_TYPES } from './contracts.js';
import { parseCursor, type CursorPosition } from './event.js';
import { EVENTS_SCHEMA } from './schema.js';

const EVENTS = sql.table(`${EVENTS_SCHEMA}.events`);
const POSITIONS = sql.table(`${EVENTS_SCHEMA}.consumer_positions`);

export interface EventRetention {
  /** Events older than this many days go (once every consumer of their type applied them); undefined: kept. */
  days: number | undefined;
  /** Types deleted as soon as every consumer of the type applied them (at least one consumer must have). */
  prunedOnceConsumed: readonly string[];
}

/**
 * The retention of the platform event log (the outbox every subgraph publishes to): no event is deleted before
 * every durable consumer of its type applied it (their reported positions, consumer-positions.ts). Within that,
 * the types pruned once consumed (traced completions) go as soon as they are applied, and every event goes once
 * older than `days`. Events that no durable consumer reads (what automations' history and subscriptions show) go by
 * age alone.
 */
export function eventRetentionPasses(root: Kysely<any>, retention: EventRetention): () => Promise<RetentionPass[]> {
  return async () => {
    const positions = await consumerPositions(root);
    const passes: RetentionPass[] = [];
    for (const type of retention.prunedOnceConsumed) {
      const applied = appliedByAll(positions, type);
      if (applied) passes.push((limit) => deleteConsumed(root, type, applied, limit));
    }
    if (retention.days !== undefined) {
      const cutoff = retentionCutoff(retention.days);
      passes.push((limit) => deleteOlderThan(root, cutoff, limit));
    }
    return passes;
  };
}

/** The event log's retention worker, with the platform's schedule and TRELLIS_EVENT_RETENTION_DAYS. */
export function createEventRetentionWorker(root: Kysely<any>, config: PlatformConfig, logger: Logger): RetentionWorker {
  return new RetentionWorker(
    'platform-event-retention',
    eventRetentionPasses(root, { days: config.retention.eventDays, prunedOnceConsumed: PRUNED_ONCE_CONSUMED_EVENT_TYPES }),
    config.retention,
    logger,
  );
}

/** The position every consumer of `type` has passed; undefined when none consumes it or one has applied none yet. */
function appliedByAll(positions: readonly ConsumerPosition[], type: string): CursorPosition | undefined {
  let lowest: CursorPosition | undefined;
  let consumers = 0;
  for (const position of positions) {
    if (!position.types.includes(type)) continue;
    consumers++;
    const cursor = parseCursor(position.cursor);
    if (!cursor || (cursor.txId === 0n && cursor.id === 0n)) return undefined;
    if (!lowest || cursor.txId < lowest.txId || (cursor.txId === lowest.txId && cursor.id < lowest.id)) lowest = cursor;
  }
  return consumers > 0 ? lowest : undefined;
}

/**
 * One batch of `type`'s events at or before `applied`, oldest first, through the (type, tx_id, id) index. The ids
 * are collected into an array first (`= any(array(…))`) so the delete probes the primary key for them: with
 * `in (subquery)` the planner may hash-join the whole table on every batch.
 */
async function deleteConsumed(root: Kysely<any>, type: string, applied: CursorPosition, limit: number): Promise<number> {
  const result = await sql`
    delete from ${EVENTS} where id = any(array(
      select id from ${EVENTS}
      where type = ${type} and (tx_id, id) <= (${String(applied.txId)}::xid8, ${String(applied.id)}::bigint)
      order by tx_id, id
      limit ${limit}
      for update skip locked))`.execute(root);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * One batch of events created before `cutoff`, oldest first (the created_at index), except those a consumer of
 * their type has not applied yet.
 */
async function deleteOlderThan(root: Kysely<any>, cutoff: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from ${EVENTS} where id = any(array(
      select e.id from ${EVENTS} e
      where e.created_at < ${cutoff}
        and not exists (
          select 1 from ${POSITIONS} p
          where e.type = any(p.types)
            and (e.tx_id, e.id) > (split_part(p.cursor, '.', 1)::xid8, split_part(p.cursor, '.', 2)::bigint))
      order by e.created_at
      limit ${limit}
      for update of e skip locked))`.execute(root);
  return Number(result.numAffectedRows ?? 0);
}
