import { Kysely, Migrator, sql, type Migration, type MigrationProvider } from 'kysely';

/**
 * Applies one subgraph's migrations inside its own Postgres schema. Safe to run twice (applied migrations are
 * recorded in `<schema>.kysely_migration`) and safe with several processes starting at once (schema creation
 * takes an advisory lock; Kysely's migrator takes its own lock for the migrations themselves).
 *
 * Migrations are frozen in time: each takes `Kysely<any>` bound to the subgraph schema, never the app's types.
 */
export type Migrations = Record<string, Migration>;

export class MigrationFailedError extends Error {
  override name = 'MigrationFailedError';
}

export async function migrateSchema(db: Kysely<any>, schema: string, migrations: Migrations): Promise<string[]> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('trellis:create-schema'))`.execute(trx);
    await sql`create schema if not exists ${sql.id(schema)}`.execute(trx);
  });
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
