import { sql, type Kysely } from 'kysely';

/** Where each platform-event consumer of the inference subgraph has got to, so restarts neither miss nor repeat. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('event_cursors')
    .addColumn('consumer', 'text', (col) => col.primaryKey())
    .addColumn('cursor', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('event_cursors').execute();
}
