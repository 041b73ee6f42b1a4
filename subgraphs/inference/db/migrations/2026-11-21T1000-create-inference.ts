import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('models')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('definition', 'jsonb', (col) => col.notNull())
    .addColumn('source', 'text', (col) => col.notNull().check(sql`source in ('config', 'api')`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'bigserial', (col) => col.primaryKey())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('entity', 'text', (col) => col.notNull())
    .addColumn('project', 'text', (col) => col.notNull())
    .addColumn('model', 'text', (col) => col.notNull())
    .addColumn('backend', 'text')
    .addColumn('deployment', 'text')
    .addColumn('api_key_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('end_user', 'text')
    .addColumn('stream', 'boolean', (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('prompt_tokens', 'integer', (col) => col.notNull())
    .addColumn('completion_tokens', 'integer', (col) => col.notNull())
    .addColumn('total_tokens', 'integer', (col) => col.notNull())
    .addColumn('latency_ms', 'double precision', (col) => col.notNull())
    .addColumn('first_token_ms', 'double precision')
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('request_id', 'text')
    .execute();
  await db.schema.createIndex('usage_records_project_time').on('usage_records').columns(['entity', 'project', 'created_at']).execute();
  await db.schema
    .createTable('project_settings')
    .addColumn('entity', 'text', (col) => col.notNull())
    .addColumn('project', 'text', (col) => col.notNull())
    .addColumn('trace_completions', 'boolean', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('project_settings_pk', ['entity', 'project'])
    .execute();
  await db.schema.createIndex('usage_records_entity_time').on('usage_records').columns(['entity', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('project_settings').execute();
  await db.schema.dropTable('usage_records').execute();
  await db.schema.dropTable('models').execute();
}
