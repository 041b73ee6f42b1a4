import { sql, type Kysely } from 'kysely';
import { EVENTS_SCHEMA } from './schema.js';

/**
 * Where each durable consumer of platform events has got to, as the event log's retention sees it
 * (`platform_events.consumer_positions`). A consumer's own cursor lives in its subgraph's schema, written in the
 * transaction that applies the events; the position here is a copy reported after that commit, so it is never
 * ahead of what the consumer applied (at worst behind it, which only keeps events longer). A consumer that ever
 * reported holds back the deletion of events of its types it has not passed, for good: a consumer retired from the
 * code should have its row deleted.
 */
export interface ConsumerPosition {
  consumer: string;
  /** The event types it applies. */
  types: readonly string[];
  /** The cursor of the last event it applied (START_CURSOR: none yet). */
  cursor: string;
}

/** Records (or moves) a consumer's position. */
export async function reportConsumerPosition(root: Kysely<any>, position: ConsumerPosition): Promise<void> {
  await sql`
    insert into ${sql.table(`${EVENTS_SCHEMA}.consumer_positions`)} (consumer, types, cursor, updated_at)
    values (${position.consumer}, ${sql.val([...position.types])}::text[], ${position.cursor}, now())
    on conflict (consumer) do update set types = excluded.types, cursor = excluded.cursor, updated_at = now()`.execute(root);
}

/** Every consumer's reported position. */
export async function consumerPositions(root: Kysely<any>): Promise<ConsumerPosition[]> {
  const { rows } = await sql<ConsumerPosition>`select consumer, types, cursor from ${sql.table(`${EVENTS_SCHEMA}.consumer_positions`)}`.execute(root);
  return rows;
}
