import type { Kysely } from 'kysely';

/** The team-wide delivery log (Query.deliveries) reads a team's deliveries newest first. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('deliveries_team_time').on('deliveries').columns(['team', 'created_at', 'id']).execute();
}
