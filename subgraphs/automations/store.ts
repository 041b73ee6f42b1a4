import type { Kysely } from 'kysely';
import type { AutomationsDatabase } from './db/database.js';

/** Kysely queries of the automations schema. */
export class AutomationsStore {
  constructor(private readonly db: Kysely<AutomationsDatabase>) {}

  async countWebhooks(team: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team', '=', team)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
