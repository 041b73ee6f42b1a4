import type { Kysely } from 'kysely';
import type { InferenceDatabase } from './db/database.js';

/** Kysely queries of the inference schema. */
export class InferenceStore {
  constructor(private readonly db: Kysely<InferenceDatabase>) {}

  async countRequests(entity: string, project: string): Promise<number> {
    const row = await this.db
      .selectFrom('usage_records')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('entity', '=', entity)
      .where('project', '=', project)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
