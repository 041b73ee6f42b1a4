import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'bigserial', (col) => col.primaryKey())
    .addColumn('entity', 'text', (col) => col.notNull())
    .addColumn('project', 'text', (col) => col.notNull())
    .addColumn('model', 'text', (col) => col.notNull())
    .addColumn('prompt_tokens', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('status', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('usage_records_project').on('usage_records').columns(['entity', 'project', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_records').execute();
}
