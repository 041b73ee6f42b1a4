import type { ColumnType } from 'kysely';

export interface CallsTable {
  project_id: string;
  id: string;
  trace_id: string;
  parent_id: string | null;
  op_name: string;
  started_at: Date;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface TracingDatabase {
  calls: CallsTable;
}
