import { sql, type Kysely, type Transaction } from 'kysely';
import { toStorableJson } from '../storable-input.js';
import type { NewPlatformEvent } from './event.js';
import { EVENTS_CHANNEL, EVENTS_SCHEMA } from './schema.js';

/**
 * Records an event in the caller's transaction, so the event exists exactly when the change does. The NOTIFY is
 * transactional too: listeners are woken at commit, never for a change that rolled back.
 */
export async function publishEvent(trx: Transaction<any> | Kysely<any>, event: NewPlatformEvent): Promise<number> {
  // Qualified name: the caller's handle is bound to its own subgraph schema.
  const row = await trx
    .insertInto(`${EVENTS_SCHEMA}.events`)
    .values({
      type: event.type,
      entity: event.entity,
      project: event.project ?? null,
      registry: event.registry ?? null,
      author: event.author,
      // Payloads carry text from elsewhere (a model's output, an upstream's error): stored with U+FFFD in place of
      // what jsonb cannot hold, rather than failing the change they belong to.
      payload: toStorableJson(event.payload),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`select pg_notify(${EVENTS_CHANNEL}, '')`.execute(trx);
  return Number(row.id);
}
