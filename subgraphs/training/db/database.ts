import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Json<T = Record<string, unknown>> = ColumnType<T, string, string>;

export interface ModelsTable {
  id: Generated<string>;
  entity: string;
  project: string;
  name: string;
  base_model: string;
  run_id: Generated<string>;
  created_at: CreatedAt;
}

export interface CheckpointsTable {
  id: Generated<string>;
  model_id: string;
  step: number;
  metrics: Json<Record<string, number>>;
  adapter_config: string | null;
  adapter_weights: Buffer | null;
  created_at: CreatedAt;
}

export interface TrajectoryLogsTable {
  id: Generated<string>;
  model_id: string;
  split: string;
  trajectory_groups: Json<unknown[]>;
  created_at: CreatedAt;
}

export type JobKind = 'RL' | 'SFT';
export type JobStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

export interface JobsTable {
  id: Generated<string>;
  model_id: string;
  kind: JobKind;
  created_by_id: string;
  created_by: string;
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>;
  request: Json;
  error_message: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  heartbeat_at: Date | null;
  training_start: Date | null;
  training_end: Date | null;
  created_at: CreatedAt;
}

export interface JobEventsTable {
  seq: Generated<number>;
  id: Generated<string>;
  job_id: string;
  type: string;
  data: Json;
  created_at: CreatedAt;
}

export type AssignmentStatus = 'PENDING' | 'LEASED' | 'DONE' | 'FAILED' | 'CANCELLED';

export interface RemoteAssignmentsTable {
  job_id: string;
  work: Json;
  status: ColumnType<AssignmentStatus, AssignmentStatus | undefined, AssignmentStatus>;
  worker_id: string | null;
  leases: ColumnType<number, number | undefined, number>;
  heartbeat_at: Date | null;
  result_step: number | null;
  result_config: string | null;
  result_weights: Buffer | null;
  error_message: string | null;
  created_at: CreatedAt;
}

/** The train.jsonl an SFT job was submitted with (a copy of the registry file). */
export interface JobDatasetsTable {
  job_id: string;
  training_data_url: string;
  artifact_version_id: string;
  /** Hex SHA-256 of `content`, as the registry reported it. */
  digest: string;
  content: Buffer;
  created_at: CreatedAt;
}

/** A named alias of a checkpoint (`production`): one row per model and alias, moved by upserting it. */
export interface CheckpointAliasesTable {
  model_id: string;
  alias: string;
  checkpoint_id: string;
  /** Username of whoever last moved the alias. */
  promoted_by: string;
  promoted_at: ColumnType<Date, Date | undefined, Date>;
}

export interface TrainingDatabase {
  checkpoint_aliases: CheckpointAliasesTable;
  job_datasets: JobDatasetsTable;
  remote_assignments: RemoteAssignmentsTable;
  models: ModelsTable;
  checkpoints: CheckpointsTable;
  trajectory_logs: TrajectoryLogsTable;
  jobs: JobsTable;
  job_events: JobEventsTable;
}
