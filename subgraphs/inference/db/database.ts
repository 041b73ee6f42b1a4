import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { ModelDefinition } from '../catalog/model-definition.schema.js';
import type { EventCursorsTable } from '../../../platform/events/event-cursor.js';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export const MODEL_SOURCES = ['config', 'api'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

export interface ModelsTable {
  id: string;
  /** Validated ModelDefinition, including any stored credential: never selected into a response. */
  definition: JSONColumnType<ModelDefinition, string, string>;
  source: ModelSource;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface UsageRecordsTable {
  id: Generated<number>;
  created_at: ColumnType<Date, Date, never>;
  entity: string;
  project: string;
  model: string;
  backend: string | null;
  deployment: string | null;
  api_key_id: string | null;
  user_id: string | null;
  end_user: string | null;
  stream: boolean;
  status: number;
  error_code: string | null;
  error_message: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_ms: number;
  first_token_ms: number | null;
  attempts: number;
  request_id: string | null;
}

export interface ProjectSettingsTable {
  entity: string;
  project: string;
  /** Record each completion of the project as a Family A call (default: on). */
  trace_completions: boolean;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface InferenceDatabase {
  event_cursors: EventCursorsTable;
  project_settings: ProjectSettingsTable;
  models: ModelsTable;
  usage_records: UsageRecordsTable;
}
