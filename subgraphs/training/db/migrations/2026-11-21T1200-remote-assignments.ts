import { sql, type Kysely } from 'kysely';

/**
 * Work handed to remote trainers (the HTTP worker protocol): one row per job being trained remotely, leased by a
 * worker, kept alive by its heartbeats, closed by its result (adapter files) or its failure.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('remote_assignments')
    .addColumn('job_id', 'uuid', (col) => col.primaryKey().references('jobs.id').onDelete('cascade'))
    .addColumn('work', 'jsonb', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('PENDING').check(sql`status in ('PENDING', 'LEASED', 'DONE', 'FAILED', 'CANCELLED')`),
    )
    .addColumn('worker_id', 'text')
    .addColumn('leases', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('heartbeat_at', 'timestamptz')
    .addColumn('result_step', 'integer')
    .addColumn('result_config', 'text')
    .addColumn('result_weights', 'bytea')
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('remote_assignments_pending').on('remote_assignments').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('remote_assignments').execute();
}
