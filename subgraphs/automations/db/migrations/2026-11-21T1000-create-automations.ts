import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('secrets')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('team', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    // AES-256-GCM, "v1:<base64 nonce|tag|ciphertext>"; the plaintext is never stored.
    .addColumn('ciphertext', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('secrets_team_name_unique', ['team', 'name'])
    .execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('team', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('endpoint_url', 'text', (col) => col.notNull())
    .addColumn('access_token_secret_id', 'uuid', (col) => col.references('secrets.id'))
    .addColumn('signing_secret_id', 'uuid', (col) => col.references('secrets.id'))
    .addColumn('disabled_at', 'timestamptz')
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('webhooks_team_name_unique', ['team', 'name'])
    .execute();

  await db.schema
    .createTable('automations')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('team', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('scope_kind', 'text', (col) => col.notNull().check(sql`scope_kind in ('PROJECT', 'REGISTRY')`))
    .addColumn('scope_name', 'text', (col) => col.notNull())
    .addColumn('event_type', 'text', (col) => col.notNull())
    .addColumn('event_filter', 'jsonb', (col) => col.notNull())
    .addColumn('run_filter', 'jsonb', (col) => col.notNull())
    .addColumn('webhook_id', 'uuid', (col) => col.notNull().references('webhooks.id'))
    .addColumn('payload_template', 'text', (col) => col.notNull())
    .addColumn('enabled', 'boolean', (col) => col.notNull().defaultTo(true))
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('automations_team_name_unique', ['team', 'name'])
    .execute();
  await db.schema.createIndex('automations_scope').on('automations').columns(['team', 'scope_kind', 'scope_name', 'event_type']).execute();

  // Where the engine is in the platform event stream; advanced in the same transaction as the deliveries it
  // creates, so every event is turned into deliveries exactly once across restarts and processes.
  await db.schema
    .createTable('engine_cursors')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('cursor', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'uuid', (col) => col.primaryKey())
    .addColumn('automation_id', 'uuid', (col) => col.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('webhook_id', 'uuid', (col) => col.notNull())
    .addColumn('team', 'text', (col) => col.notNull())
    .addColumn('event_id', 'bigint', (col) => col.notNull())
    .addColumn('event_type', 'text', (col) => col.notNull())
    // Template and event variables, not the rendered body: secrets are substituted only when sending.
    .addColumn('payload_template', 'text', (col) => col.notNull())
    .addColumn('variables', 'jsonb', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('PENDING'))
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    // The attempt number after which the delivery fails; a redelivery raises it (attempt numbers keep growing).
    .addColumn('attempt_limit', 'integer', (col) => col.notNull())
    .addColumn('next_attempt_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('lease_until', 'timestamptz')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addUniqueConstraint('deliveries_automation_event_unique', ['automation_id', 'event_id'])
    .execute();
  await db.schema.createIndex('deliveries_due').on('deliveries').column('next_attempt_at').where(sql.ref('status'), '=', 'PENDING').execute();
  await db.schema.createIndex('deliveries_automation').on('deliveries').columns(['automation_id', 'created_at']).execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('delivery_id', 'uuid', (col) => col.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz', (col) => col.notNull())
    .addColumn('finished_at', 'timestamptz', (col) => col.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('delivery_attempts_pk', ['delivery_id', 'attempt'])
    .execute();

  // Metric values seen in RUN_METRIC events, for window conditions (the engine never reads registry tables).
  await db.schema
    .createTable('metric_values')
    .addColumn('run_id', 'text', (col) => col.notNull())
    .addColumn('metric', 'text', (col) => col.notNull())
    .addColumn('step', 'integer', (col) => col.notNull())
    .addColumn('value', 'double precision', (col) => col.notNull())
    .addPrimaryKeyConstraint('metric_values_pk', ['run_id', 'metric', 'step'])
    .execute();

  // A metric condition fires at most once per run per 24 h.
  await db.schema
    .createTable('metric_firings')
    .addColumn('automation_id', 'uuid', (col) => col.notNull().references('automations.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (col) => col.notNull())
    .addColumn('fired_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('metric_firings_pk', ['automation_id', 'run_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['metric_firings', 'metric_values', 'delivery_attempts', 'deliveries', 'engine_cursors', 'automations', 'webhooks', 'secrets']) {
    await db.schema.dropTable(table).execute();
  }
}
