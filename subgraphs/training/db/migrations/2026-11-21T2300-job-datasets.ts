import { sql, type Kysely } from 'kysely';

/**
 * The dataset an SFT job trains on, copied from the registry when the job is submitted: the worker (embedded or
 * remote, possibly much later) trains on exactly what the caller submitted, whatever happens to the artifact.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_datasets')
    .addColumn('job_id', 'uuid', (col) => col.primaryKey().references('jobs.id').onDelete('cascade'))
    .addColumn('training_data_url', 'text', (col) => col.notNull())
    .addColumn('artifact_version_id', 'text', (col) => col.notNull())
    .addColumn('digest', 'text', (col) => col.notNull())
    .addColumn('content', 'bytea', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_datasets').execute();
}
