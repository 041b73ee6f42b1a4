import { sql, type Kysely } from 'kysely';
import type { InferenceDatabase, ModelSource } from '../db/database.js';
import type { ModelDefinition } from './model-definition.schema.js';

export interface ModelRow {
  id: string;
  definition: ModelDefinition;
  source: ModelSource;
  createdAt: Date;
  updatedAt: Date;
}

type Db = Kysely<InferenceDatabase>;

/** NOTIFY channel: the catalog changed; a wake-up call only (every process re-reads the table). */
export const MODEL_CATALOG_CHANNEL = 'trellis_inference_catalog_changed';

/** Kysely queries of the model catalog. */
export const catalogStore = {
  async listModels(db: Db): Promise<ModelRow[]> {
    const rows = await db.selectFrom('models').selectAll().orderBy('id').execute();
    return rows.map((row) => ({
      id: row.id,
      definition: row.definition,
      source: row.source,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }));
  },

  async upsertModel(db: Db, definition: ModelDefinition, source: ModelSource): Promise<void> {
    await db
      .insertInto('models')
      .values({ id: definition.id, definition: JSON.stringify(definition), source })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet({ definition: JSON.stringify(definition), source, updated_at: new Date() }),
      )
      .execute();
  },

  async deleteModel(db: Db, id: string): Promise<boolean> {
    const result = await db.deleteFrom('models').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /** Tells every process serving the catalog to re-read it; delivered when the writing transaction commits. */
  async notifyCatalogChanged(db: Db): Promise<void> {
    await sql`select pg_notify(${MODEL_CATALOG_CHANNEL}, '')`.execute(db);
  },

  /** Config-file models that the file no longer lists. */
  async deleteConfigModelsExcept(db: Db, keep: string[]): Promise<void> {
    let query = db.deleteFrom('models').where('source', '=', 'config');
    if (keep.length > 0) query = query.where('id', 'not in', keep);
    await query.execute();
  },
};
