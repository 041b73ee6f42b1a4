import { sql, type Kysely } from 'kysely';

/**
 * A monitor's threshold (mean score below X over N minutes with at least M samples) and whether it is crossed now:
 * a crossing publishes one automation event, and the next needs the mean back at X or above first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table tracing.monitors add column threshold jsonb, add column threshold_crossed boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table tracing.monitors drop column threshold, drop column threshold_crossed`.execute(db);
}
