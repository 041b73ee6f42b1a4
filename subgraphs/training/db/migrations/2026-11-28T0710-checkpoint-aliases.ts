import { sql, type Kysely } from 'kysely';

/**
 * Named aliases of checkpoints (`production`, `candidate`): one checkpoint per alias per model, so moving an alias
 * is one upsert of its row. The built-in names (`latest`, `step<N>`) are computed, never stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('checkpoint_aliases')
    .addColumn('model_id', 'uuid', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('alias', 'text', (col) => col.notNull())
    .addColumn('checkpoint_id', 'uuid', (col) => col.notNull().references('checkpoints.id').onDelete('cascade'))
    .addColumn('promoted_by', 'text', (col) => col.notNull())
    .addColumn('promoted_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('checkpoint_aliases_pkey', ['model_id', 'alias'])
    .execute();
  await db.schema.createIndex('checkpoint_aliases_checkpoint').on('checkpoint_aliases').column('checkpoint_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('checkpoint_aliases').execute();
}
