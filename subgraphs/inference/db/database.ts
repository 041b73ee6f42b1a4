import type { ColumnType, Generated } from 'kysely';

export interface UsageRecordsTable {
  id: Generated<number>;
  entity: string;
  project: string;
  model: string;
  prompt_tokens: Generated<number>;
  completion_tokens: Generated<number>;
  status: number;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface InferenceDatabase {
  usage_records: UsageRecordsTable;
}
