import type { ColumnType, Generated } from 'kysely';
import type { EventCursorsTable } from '../../../platform/events/event-cursor.js';

export const RUN_STATES = ['RUNNING', 'FINISHED', 'FAILED', 'KILLED'] as const;
export type RunState = (typeof RUN_STATES)[number];

export const COLLECTION_OWNER_KINDS = ['PROJECT', 'REGISTRY'] as const;
export type CollectionOwnerKind = (typeof COLLECTION_OWNER_KINDS)[number];

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface RegistriesTable {
  id: Generated<string>;
  entity: string;
  name: string;
  description: string | null;
  created_by: string;
  created_at: CreatedAt;
}

export interface CollectionsTable {
  id: Generated<string>;
  entity: string;
  owner_kind: CollectionOwnerKind;
  owner_name: string;
  name: string;
  type: string;
  description: string | null;
  created_at: CreatedAt;
}

export interface VersionsTable {
  id: Generated<string>;
  collection_id: string;
  digest: string;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_by: string;
  created_at: CreatedAt;
}

export interface VersionFilesTable {
  version_id: string;
  path: string;
  digest: string;
  size: number;
  content: Buffer;
}

export interface MembershipsTable {
  collection_id: string;
  version_id: string;
  version_index: number;
  linked_by: string;
  created_at: CreatedAt;
}

export interface AliasesTable {
  collection_id: string;
  alias: string;
  version_id: string;
}

export interface TagsTable {
  version_id: string;
  tag: string;
}

export interface RunsTable {
  id: Generated<string>;
  entity: string;
  project: string;
  name: string;
  author: string;
  state: Generated<RunState>;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface RunMetricsTable {
  run_id: string;
  name: string;
  step: number;
  value: number;
  logged_at: CreatedAt;
}

export interface RegistryDatabase {
  registries: RegistriesTable;
  collections: CollectionsTable;
  versions: VersionsTable;
  version_files: VersionFilesTable;
  memberships: MembershipsTable;
  aliases: AliasesTable;
  tags: TagsTable;
  runs: RunsTable;
  run_metrics: RunMetricsTable;
  event_cursors: EventCursorsTable;
}

