import type { ColumnType, Generated } from 'kysely';
import type { TeamRole } from '../../../platform/auth/principal.js';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface TeamsTable {
  id: Generated<string>;
  name: string;
  created_at: CreatedAt;
}
export interface UsersTable {
  id: Generated<string>;
  username: string;
  email: string | null;
  is_admin: Generated<boolean>;
  default_team_id: string | null;
  created_at: CreatedAt;
}
export interface MembershipsTable {
  team_id: string;
  user_id: string;
  role: TeamRole;
}
export interface ProjectsTable {
  id: Generated<string>;
  team_id: string;
  name: string;
  created_at: CreatedAt;
  /** Set by upsertModel (migration 2026-11-28T1100); null until someone describes the project. */
  description: ColumnType<string | null, string | null | undefined, string | null>;
}
export const RESOURCE_KINDS = ['PROJECT', 'REGISTRY'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
export interface ResourceRolesTable {
  user_id: string;
  team_id: string;
  resource_kind: ResourceKind;
  resource_name: string;
  role: 'ADMIN';
}
export interface ApiKeysTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  display_prefix: string;
  key_hash: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** A process caching principals, and the last principal change it applied (migration 2026-11-28T1000). */
export interface PrincipalFollowersTable {
  id: string;
  acked_seq: ColumnType<string, string | number | bigint, string | number | bigint>;
  seen_at: ColumnType<Date, never, Date | string>;
}

export interface IdentityDatabase {
  teams: TeamsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  projects: ProjectsTable;
  resource_roles: ResourceRolesTable;
  api_keys: ApiKeysTable;
  principal_followers: PrincipalFollowersTable;
}
