import { Kysely, Migrator, sql, type Migration, type MigrationProvider } from 'kysely';

/**
 * Applies one subgraph's migrations inside its own Postgres schema. Safe to run twice (applied migrations are
 * recorded in `<schema>.kysely_migration`) and safe with several processes starting at once: every migration of
 * the platform runs under one advisory lock (withMigrationLock), because one schema's DDL can break another's
 * catalog introspection running at the same moment (seen: graphile-worker altering its tables while Kysely's
 * migrator listed every table).
 *
 * Migrations are frozen in time: each takes `Kysely<any>` bound to the subgraph schema, never the app's types.
 */
export type Migrations = Record<string, Migration>;

export class MigrationFailedError extends Error {
  override name = 'MigrationFailedError';
}

/**
 * Runs `migrate` while holding the platform-wide migration lock (a session advisory lock on one connection of
 * `db`'s pool; other processes wait for it). Not reentrant: never nest it.
 */
export async function withMigrationLock<T>(db: Kysely<any>, migrate: () => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(hashtext('trellis:migrations'))`.execute(connection);
    try {
      return await migrate();
    } finally {
      await sql`select pg_advisory_unlock(hashtext('trellis:migrations'))`.execute(connection);
    }
  });
}

export function migrateSchema(db: Kysely<any>, schema: string, migrations: Migrations): Promise<string[]> {
  return withMigrationLock(db, () => migrateSchemaLocked(db, schema, migrations));
}

async function migrateSchemaLocked(db: Kysely<any>, schema: string, migrations: Migrations): Promise<string[]> {
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({
    db: db.withSchema(schema),
    provider,
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new MigrationFailedError(
      `migration ${failed?.migrationName ?? '(unknown)'} of schema ${schema} failed: ${(error as Error).message ?? error}`,
    );
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
