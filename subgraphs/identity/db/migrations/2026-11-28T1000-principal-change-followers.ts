import { sql, type Kysely } from 'kysely';

/**
 * Principal changes (a membership removed, a role changed, a key revoked) are numbered, and every process that caches
 * principals registers as a follower that acknowledges the numbers it has applied. The process making a change waits
 * for the followers' acknowledgements before it answers, so the change is in force everywhere when the mutation
 * returns (authenticator.ts). `seen_at` is a follower's heartbeat: rows of processes that stopped beating are ignored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence identity.principal_change_seq`.execute(db);
  await db.schema
    .withSchema('identity')
    .createTable('principal_followers')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('acked_seq', 'bigint', (column) => column.notNull())
    .addColumn('seen_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .execute();
}
