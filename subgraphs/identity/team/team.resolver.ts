import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, requireTeamMember } from '../../../platform/auth/authorize.js';
import type { TeamRole } from '../../../platform/auth/principal.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Project, toProject } from '../project/project.type.js';
import type { IdentityServices } from '../services.js';
import { TeamRoleEnum } from '../user/user.type.js';
import { Team, TeamMember } from './team.type.js';

export function toTeam(row: { id: string; name: string; createdAt: Date }): Team {
  return Object.assign(new Team(), row);
}

@Resolver(() => Team)
export class TeamResolver {
  constructor(private readonly services: IdentityServices) {}

  @Query(() => Team, { nullable: true, description: 'A team the caller belongs to' })
  async team(@Arg('name', () => String, { description: 'Team (entity) name' }) name: string, @Ctx() context: GraphQLContext): Promise<Team | null> {
    requireTeamMember(context, name);
    const row = await this.services.identity.team(name);
    return row ? toTeam(row) : null;
  }

  @FieldResolver(() => [TeamMember], { description: "The team's members and their roles (a plain list: a team's members are few by nature)" })
  async members(@Root() team: Team, @Ctx() context: GraphQLContext): Promise<TeamMember[]> {
    requireTeamMember(context, team.name);
    const rows = await this.services.identity.membersOfTeam(await this.teamId(team));
    return rows.map((row) => Object.assign(new TeamMember(), { username: row.username, role: row.role }));
  }

  @FieldResolver(() => [Project], { description: "The team's projects, by name" })
  async projects(@Root() team: Team, @Ctx() context: GraphQLContext): Promise<Project[]> {
    requireTeamMember(context, team.name);
    return (await this.services.identity.projectsOfTeam(await this.teamId(team))).map(toProject);
  }

  @Mutation(() => Team, { description: 'Creates a team; the caller becomes its admin' })
  async createTeam(@Arg('name', () => String, { description: 'Team name (unique ignoring case among teams and users)' }) name: string, @Ctx() context: GraphQLContext): Promise<Team> {
    const principal = requirePrincipal(context);
    return toTeam(await this.services.identity.createTeam(name, principal));
  }

  @Mutation(() => Team, { description: 'Team admins: add a member or change their role' })
  async setTeamMember(
    @Arg('team', () => String, { description: 'Team (entity) name' }) team: string,
    @Arg('username', () => String, { description: 'The user' }) username: string,
    @Arg('role', () => TeamRoleEnum, { description: 'Their role in the team' }) role: TeamRole,
    @Ctx() context: GraphQLContext,
  ): Promise<Team> {
    return toTeam(await this.services.identity.setTeamMember(requirePrincipal(context), team, username, role));
  }

  @Mutation(() => Boolean, { description: 'Team admins: remove a member' })
  removeTeamMember(
    @Arg('team', () => String, { description: 'Team (entity) name' }) team: string,
    @Arg('username', () => String, { description: 'The user' }) username: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.identity.removeTeamMember(requirePrincipal(context), team, username);
  }

  @Mutation(() => Boolean, { description: 'Team admins: make a user admin of one project' })
  grantProjectAdmin(
    @Arg('entity', () => String, { description: 'Team (entity) name' }) entity: string,
    @Arg('project', () => String, { description: 'Project name' }) project: string,
    @Arg('username', () => String, { description: 'The user' }) username: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.identity.grantResourceAdmin(requirePrincipal(context), 'PROJECT', entity, project, username);
  }

  @Mutation(() => Boolean, { description: 'Team admins: make a user admin of one registry' })
  grantRegistryAdmin(
    @Arg('entity', () => String, { description: 'Team (entity) name' }) entity: string,
    @Arg('registry', () => String, { description: 'Registry name' }) registry: string,
    @Arg('username', () => String, { description: 'The user' }) username: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.identity.grantResourceAdmin(requirePrincipal(context), 'REGISTRY', entity, registry, username);
  }

  private async teamId(team: Team): Promise<string> {
    return team.id ?? (await this.services.identity.team(team.name))!.id;
  }
}
