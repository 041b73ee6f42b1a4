import type { Kysely } from 'kysely';

/** Usage retention finds the records past their retention by age alone, across every team (usage-retention.ts). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('usage_records_time').on('usage_records').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('usage_records_time').execute();
}
