/**
 * Who is calling, with every role they hold, resolved once at the edge (gateway / REST adapter) from the API key
 * and handed to every subgraph: in-process through the GraphQL context, across processes in a signed header.
 */
export const TEAM_ROLES = ['ADMIN', 'MEMBER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export interface Principal {
  userId: string;
  username: string;
  /** Platform operator: may do anything, including creating users and teams. */
  isAdmin: boolean;
  apiKeyId: string;
  /** The entity used when a request names none (the user's personal or first team). */
  defaultEntity: string;
  /** Team (entity) name → role. */
  teams: Record<string, TeamRole>;
  /** "entity/project" names the user administers without being an admin of the team. */
  projectAdmin: string[];
  /** "entity/registry" names the user administers without being an admin of the team. */
  registryAdmin: string[];
}

export function isTeamMember(principal: Principal, entity: string): boolean {
  return principal.isAdmin || principal.teams[entity] !== undefined;
}

export function isTeamAdmin(principal: Principal, entity: string): boolean {
  return principal.isAdmin || principal.teams[entity] === 'ADMIN';
}

export function isProjectAdmin(principal: Principal, entity: string, project: string): boolean {
  return isTeamAdmin(principal, entity) || principal.projectAdmin.includes(`${entity}/${project}`);
}

export function isRegistryAdmin(principal: Principal, entity: string, registry: string): boolean {
  return isTeamAdmin(principal, entity) || principal.registryAdmin.includes(`${entity}/${registry}`);
}
