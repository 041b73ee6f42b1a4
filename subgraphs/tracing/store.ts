import type { Kysely } from 'kysely';
import type { TracingDatabase } from './db/database.js';

/** Kysely queries of the tracing schema. Projects are addressed as Weave does: "entity/project". */
export class TracingStore {
  constructor(private readonly db: Kysely<TracingDatabase>) {}

  async countCalls(projectId: string): Promise<number> {
    const row = await this.db
      .selectFrom('calls')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
