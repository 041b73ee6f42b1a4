import type { ColumnType, Generated } from 'kysely';

export interface ModelsTable {
  id: Generated<string>;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface TrainingDatabase {
  models: ModelsTable;
}
