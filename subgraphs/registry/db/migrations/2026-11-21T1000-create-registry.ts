import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('registries')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('entity', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('registries_entity_name_unique', ['entity', 'name'])
    .execute();

  // A collection belongs to a project (where versions are created) or to a registry (where they are linked).
  await db.schema
    .createTable('collections')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('entity', 'text', (col) => col.notNull())
    .addColumn('owner_kind', 'text', (col) => col.notNull().check(sql`owner_kind in ('PROJECT', 'REGISTRY')`))
    .addColumn('owner_name', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('collections_owner_name_unique', ['entity', 'owner_kind', 'owner_name', 'name'])
    .execute();

  await db.schema
    .createTable('versions')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('collection_id', 'uuid', (col) => col.notNull().references('collections.id'))
    .addColumn('digest', 'text', (col) => col.notNull())
    .addColumn('metadata', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('version_files')
    .addColumn('version_id', 'uuid', (col) => col.notNull().references('versions.id').onDelete('cascade'))
    .addColumn('path', 'text', (col) => col.notNull())
    .addColumn('digest', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('content', 'bytea', (col) => col.notNull())
    .addPrimaryKeyConstraint('version_files_pk', ['version_id', 'path'])
    .execute();

  // A version is a member of its source collection (index = "v<N>" there) and of every collection it is linked to.
  await db.schema
    .createTable('memberships')
    .addColumn('collection_id', 'uuid', (col) => col.notNull().references('collections.id'))
    .addColumn('version_id', 'uuid', (col) => col.notNull().references('versions.id'))
    .addColumn('version_index', 'integer', (col) => col.notNull())
    .addColumn('linked_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('memberships_pk', ['collection_id', 'version_id'])
    .addUniqueConstraint('memberships_index_unique', ['collection_id', 'version_index'])
    .execute();

  // An alias names one version within one collection ("latest", "production"); adding it elsewhere moves it.
  await db.schema
    .createTable('aliases')
    .addColumn('collection_id', 'uuid', (col) => col.notNull().references('collections.id'))
    .addColumn('alias', 'text', (col) => col.notNull())
    .addColumn('version_id', 'uuid', (col) => col.notNull().references('versions.id'))
    .addPrimaryKeyConstraint('aliases_pk', ['collection_id', 'alias'])
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('version_id', 'uuid', (col) => col.notNull().references('versions.id'))
    .addColumn('tag', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('tags_pk', ['version_id', 'tag'])
    .execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'uuid', (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('entity', 'text', (col) => col.notNull())
    .addColumn('project', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('author', 'text', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull().defaultTo('RUNNING'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('runs_project').on('runs').columns(['entity', 'project']).execute();

  await db.schema
    .createTable('run_metrics')
    .addColumn('run_id', 'uuid', (col) => col.notNull().references('runs.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('step', 'integer', (col) => col.notNull())
    .addColumn('value', 'double precision', (col) => col.notNull())
    .addColumn('logged_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('run_metrics_pk', ['run_id', 'name', 'step'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['run_metrics', 'runs', 'tags', 'aliases', 'memberships', 'version_files', 'versions', 'collections', 'registries']) {
    await db.schema.dropTable(table).execute();
  }
}
