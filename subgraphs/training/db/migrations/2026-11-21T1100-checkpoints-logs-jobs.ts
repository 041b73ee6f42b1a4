import { sql, type Kysely } from 'kysely';

/**
 * Checkpoints, trajectory logs, training jobs and their events. Everything hangs off a model and is deleted with
 * it (ON DELETE CASCADE), so a model delete is one statement inside one transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // The model's run in the registry sense: ART shows `run_id`; it names the run that jobs log their metrics into.
  await db.schema.alterTable('models').addColumn('run_id', 'text', (col) => col.notNull().defaultTo(sql`substr(md5(random()::text), 1, 8)`)).execute();

  await db.schema
    .createTable('checkpoints')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('model_id', 'uuid', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('step', 'integer', (col) => col.notNull())
    .addColumn('metrics', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    // The LoRA adapter of this step (model-runtime saveAdapter files); null only while a remote upload is pending.
    .addColumn('adapter_config', 'text')
    .addColumn('adapter_weights', 'bytea')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('checkpoints_model_step_unique', ['model_id', 'step'])
    .execute();

  await db.schema
    .createTable('trajectory_logs')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('model_id', 'uuid', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('split', 'text', (col) => col.notNull())
    .addColumn('trajectory_groups', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('trajectory_logs_model_split').on('trajectory_logs').columns(['model_id', 'split', 'created_at']).execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('model_id', 'uuid', (col) => col.notNull().references('models.id').onDelete('cascade'))
    .addColumn('kind', 'text', (col) => col.notNull().check(sql`kind in ('RL', 'SFT')`))
    // Who submitted the job: the author of its registry run and checkpoint artifacts.
    .addColumn('created_by_id', 'text', (col) => col.notNull())
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('QUEUED').check(sql`status in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')`),
    )
    // The request as submitted (trajectory groups or training_data_url, config, experimental_config).
    .addColumn('request', 'jsonb', (col) => col.notNull())
    .addColumn('error_message', 'text')
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('heartbeat_at', 'timestamptz')
    .addColumn('training_start', 'timestamptz')
    .addColumn('training_end', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('jobs_model_created').on('jobs').columns(['model_id', 'created_at']).execute();

  await db.schema
    .createTable('job_events')
    // `seq` orders events; `id` is what clients see and pass back as `after`.
    .addColumn('seq', 'bigserial', (col) => col.primaryKey())
    .addColumn('id', 'uuid', (col) => col.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .addColumn('job_id', 'uuid', (col) => col.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('data', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('job_events_job_seq').on('job_events').columns(['job_id', 'seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_events').execute();
  await db.schema.dropTable('jobs').execute();
  await db.schema.dropTable('trajectory_logs').execute();
  await db.schema.dropTable('checkpoints').execute();
  await db.schema.alterTable('models').dropColumn('run_id').execute();
}
