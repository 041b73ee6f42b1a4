import type { Kysely } from 'kysely';
import type { TrainingDatabase } from './db/database.js';

/** Kysely queries of the training schema. */
export class TrainingStore {
  constructor(private readonly db: Kysely<TrainingDatabase>) {}

  async countModels(entity: string, project: string): Promise<number> {
    const row = await this.db
      .selectFrom('models')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('entity', '=', entity)
      .where('project', '=', project)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
