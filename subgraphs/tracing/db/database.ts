import type { ColumnType, Generated } from 'kysely';
import type { EventCursorsTable } from '../../../platform/events/event-cursor.js';

type Json = unknown;

export interface CallsTable {
  project_id: string;
  id: string;
  trace_id: string | null;
  parent_id: string | null;
  op_name: string | null;
  display_name: string | null;
  thread_id: string | null;
  turn_id: string | null;
  started_at: Date | null;
  attributes: Json | null;
  inputs: Json | null;
  otel_dump: Json | null;
  wb_user_id: string | null;
  wb_run_id: string | null;
  wb_run_step: number | null;
  ended_at: Date | null;
  output: Json | null;
  summary: Json | null;
  exception: string | null;
  kind: Generated<CallKind>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export const CALL_KINDS = ['call', 'prediction', 'evaluation_run', 'score'] as const;
export type CallKind = (typeof CALL_KINDS)[number];

export interface ObjectsTable {
  project_id: string;
  object_id: string;
  digest: string;
  version_index: number;
  kind: string;
  base_object_class: string | null;
  val: Json;
  wb_user_id: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface TablesTable {
  project_id: string;
  digest: string;
  row_digests: string[];
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface TableRowsTable {
  project_id: string;
  digest: string;
  val: Json;
}

export interface FilesTable {
  project_id: string;
  digest: string;
  content: Buffer;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface FeedbackTable {
  project_id: string;
  id: string;
  weave_ref: string;
  feedback_type: string;
  payload: Json;
  creator: string | null;
  runnable_ref: string | null;
  call_ref: string | null;
  trigger_ref: string | null;
  annotation_ref: string | null;
  wb_user_id: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  created_ms: number;
  scorer_id: string | null;
  monitor_id: string | null;
  span_type: string | null;
  scorer_tags: string[];
  scorer_rating_names: string[];
  scorer_rating_values: number[];
  rating: number | null;
  span_agent_name: string | null;
  span_agent_version: string | null;
  span_status_code: string;
}

/** A project's own trace settings (no row: the platform's defaults). */
export interface ProjectSettingsTable {
  /** "entity/project", as calls are keyed. */
  project_id: string;
  /** Calls of traces whose root started longer ago than this are deleted. */
  trace_retention_days: number;
  updated_at: ColumnType<Date, Date | undefined, Date | undefined>;
}

/** A monitor: a scorer applied to a project's new calls (subgraphs/tracing/monitor). */
export interface MonitorsTable {
  id: string;
  project_id: string;
  name: string;
  op_names: string[];
  /** Attribute key → the value it must equal (JSON). */
  attributes: Json;
  roots_only: boolean;
  sampling_rate: number;
  /** The scorer's definition (MonitorScorer, validated when saved). */
  scorer: Json;
  active: boolean;
  /** MonitorThreshold (null: none). */
  threshold: Json;
  /** Whether the threshold is crossed now (set when the crossing's event is published). */
  threshold_crossed: Generated<boolean>;
  /** User id of whoever created it: its scores' feedback is written as theirs. */
  created_by: string;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date | undefined>;
}

/** What a monitor did with a call, once: the primary key (monitor_id, call_id) makes scoring once-only. */
export interface MonitorResultsTable {
  monitor_id: string;
  call_id: string;
  outcome: 'scored' | 'skipped' | 'failed';
  score: number | null;
  reason: string | null;
  latency_ms: number | null;
  /** Tokens an LLM judge spent on the call (null: a built-in check). */
  prompt_tokens: number | null;
  completion_tokens: number | null;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** A monitor's counts, added to by the statement that records its results (so its stats read one row). */
export interface MonitorCountsTable {
  monitor_id: string;
  scored: number;
  skipped: number;
  failed: number;
  /** Latency of the results that ran a scorer (not skipped) */
  latency_sum: number;
  latency_n: number;
  /** Score of the scored results */
  score_sum: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** An evaluation run the platform is running (evaluateDataset): its process and that process's last heartbeat. */
export interface DatasetEvaluationRunsTable {
  project_id: string;
  run_id: string;
  /** The process running it (a random id per process). */
  owner: string;
  heartbeat_at: ColumnType<Date, Date | undefined, Date | undefined>;
}

export interface TracingDatabase {
  event_cursors: EventCursorsTable;
  calls: CallsTable;
  objects: ObjectsTable;
  tables: TablesTable;
  table_rows: TableRowsTable;
  files: FilesTable;
  feedback: FeedbackTable;
  project_settings: ProjectSettingsTable;
  monitors: MonitorsTable;
  monitor_results: MonitorResultsTable;
  monitor_counts: MonitorCountsTable;
  dataset_evaluation_runs: DatasetEvaluationRunsTable;
}
