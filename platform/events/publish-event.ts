import { sql, type Kysely, type Transaction } from 'kysely';
import { toStorableJson } from '../storable-input.js';
import { formatNotifiedTypes, type NewPlatformEvent } from './event.js';
import { EVENTS_CHANNEL, EVENTS_SCHEMA } from './schema.js';

/**
 * Records an event in the caller's transaction, so the event exists exactly when the change does. The NOTIFY is
 * transactional too: listeners are woken at commit, never for a change that rolled back; it names the events' types,
 * so only their subscribers are woken.
 */
export async function publishEvent(trx: Transaction<any> | Kysely<any>, event: NewPlatformEvent): Promise<number> {
  const [id] = await publishEvents(trx, [event]);
  return id!;
}

/**
 * Records events in the caller's transaction with one statement (the insert and the NOTIFY), whatever their number:
 * a writer that publishes per request (traced inference completions, hundreds a second) would otherwise spend two
 * round trips per event. One statement is atomic, so a writer with nothing else to write needs no transaction. The
 * events get ids (and so stream order) in the order given; resolves with those ids.
 */
export async function publishEvents(trx: Transaction<any> | Kysely<any>, events: readonly NewPlatformEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  // The rows travel as one JSON parameter, not a parameter per column and row. Payloads carry text from elsewhere
  // (a model's output, an upstream's error): stored with U+FFFD in place of what jsonb cannot hold, rather than
  // failing the change they belong to.
  const rows = events.map((event) => ({
    type: event.type,
    entity: event.entity,
    project: event.project ?? null,
    registry: event.registry ?? null,
    author: event.author,
    payload: event.payload,
  }));
  // `with ordinality` and the ordered select make bigserial hand out ids in the order of the array.
  // The NOTIFY's CTE runs once (a CTE with a volatile function is never inlined).
  const { rows: inserted } = await sql<{ id: string }>`
    with inserted as (
      insert into ${sql.table(`${EVENTS_SCHEMA}.events`)} (type, entity, project, registry, author, payload)
      select r.type, r.entity, r.project, r.registry, r.author, r.payload
      from rows from (jsonb_to_recordset(${toStorableJson(rows)}::jsonb)
          as (type text, entity text, project text, registry text, author text, payload jsonb)) with ordinality
        as r(type, entity, project, registry, author, payload, position)
      order by r.position
      returning id
    ), woken as (select pg_notify(${EVENTS_CHANNEL}, ${formatNotifiedTypes(events.map((event) => event.type))}))
    select inserted.id from inserted, woken`.execute(trx);
  return inserted.map((row) => Number(row.id)).sort((a, b) => a - b);
}
