import { sql, type Kysely } from 'kysely';
import { migrateSchema, type Migrations } from '../db/migrate.js';

/** The platform's event outbox lives in its own Postgres schema, owned by no subgraph. */
export const EVENTS_SCHEMA = 'platform_events';
/** NOTIFY channel: a wake-up call only (naming the types committed); readers always re-read the table. */
export const EVENTS_CHANNEL = 'trellis_platform_events';

const migrations: Migrations = {
  '2026-11-21T1200-create-events': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('events')
        .addColumn('id', 'bigserial', (col) => col.primaryKey())
        // The writing transaction: readers order by (tx_id, id) and only read transactions older than every
        // running one, so a slow transaction committing late cannot slip in behind a reader's cursor.
        .addColumn('tx_id', sql`xid8`, (col) => col.notNull().defaultTo(sql`pg_current_xact_id()`))
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('entity', 'text', (col) => col.notNull())
        .addColumn('project', 'text')
        .addColumn('registry', 'text')
        .addColumn('author', 'text', (col) => col.notNull())
        .addColumn('payload', 'jsonb', (col) => col.notNull())
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema.createIndex('events_order').on('events').columns(['tx_id', 'id']).execute();
    },
  },
  // A team's recent events, newest first (automations' recentPlatformEvents).
  '2026-11-25T1000-events-by-entity': {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('events_entity_order').on('events').columns(['entity', 'tx_id', 'id']).execute();
    },
  },
  // A subscriber of some types (a consumer, the automation engine) reads their events in stream order without
  // reading past the others: one traced inference completion a request would otherwise be scanned by each of them.
  '2026-11-27T1000-events-by-type': {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('events_type_order').on('events').columns(['type', 'tx_id', 'id']).execute();
    },
  },
  // Retention (event-retention.ts): where each durable consumer has got to, so no event is deleted before every
  // consumer of its type processed it; and the events by age, so a sweep finds the old ones without a scan.
  '2026-11-28T0500-event-retention': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('consumer_positions')
        .addColumn('consumer', 'text', (col) => col.primaryKey())
        .addColumn('types', sql`text[]`, (col) => col.notNull())
        .addColumn('cursor', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema.createIndex('events_created_at').on('events').columns(['created_at']).execute();
    },
  },
};

/** Creates or upgrades the outbox; every subgraph that publishes or reads events calls it (idempotent). */
export function migrateEvents(root: Kysely<any>): Promise<string[]> {
  return migrateSchema(root, EVENTS_SCHEMA, migrations);
}
