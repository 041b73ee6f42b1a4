import type { Kysely } from 'kysely';

/** A project's description, which W&B clients set with `upsertModel` (the Weave SDKs create projects with it). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.withSchema('identity').alterTable('projects').addColumn('description', 'text').execute();
}
