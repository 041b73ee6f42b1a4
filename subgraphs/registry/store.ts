import type { Kysely } from 'kysely';
import type { RegistryDatabase } from './db/database.js';

/** Kysely queries of the registry schema. */
export class RegistryStore {
  constructor(private readonly db: Kysely<RegistryDatabase>) {}

  async countRuns(entity: string, project: string): Promise<number> {
    const row = await this.db
      .selectFrom('runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('entity', '=', entity)
      .where('project', '=', project)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
