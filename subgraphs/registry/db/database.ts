import type { ColumnType, Generated } from 'kysely';

export const RUN_STATES = ['RUNNING', 'FINISHED', 'FAILED', 'KILLED'] as const;
export type RunState = (typeof RUN_STATES)[number];

export interface RunsTable {
  id: Generated<string>;
  entity: string;
  project: string;
  name: string;
  author: string;
  state: Generated<RunState>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface RegistryDatabase {
  runs: RunsTable;
}
