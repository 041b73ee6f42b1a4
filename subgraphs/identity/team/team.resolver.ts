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
  async team(@Arg('name', () => String) name: string, @Ctx() context: GraphQLContext): Promise<Team | null> {
    requireTeamMember(context, name);
    const row = await this.services.identity.team(name);
    return row ? toTeam(row) : null;
  }

  @FieldResolver(() => [TeamMember])
  async members(@Root() team: Team, @Ctx() context: GraphQLContext): Promise<TeamMember[]> {
    requireTeamMember(context, team.name);
    const rows = await this.services.identity.membersOfTeam(await this.teamId(team));
    return rows.map((row) => Object.assign(new TeamMember(), { username: row.username, role: row.role }));
  }

  @FieldResolver(() => [Project])
  async projects(@Root() team: Team, @Ctx() context: GraphQLContext): Promise<Project[]> {
    requireTeamMember(context, team.name);
    return (await this.services.identity.projectsOfTeam(await this.teamId(team))).map(toProject);
  }

  @Mutation(() => Team, { description: 'Creates a team; the caller becomes its admin' })
  async createTeam(@Arg('name', () => String) name: string, @Ctx() context: GraphQLContext): Promise<Team> {
    const principal = requirePrincipal(context);
    return toTeam(await this.services.identity.createTeam(name, principal));
  }

  @Mutation(() => Team, { description: 'Team admins: add a member or change their role' })
  async setTeamMember(
    @Arg('team', () => String) team: string,
    @Arg('username', () => String) username: string,
    @Arg('role', () => TeamRoleEnum) role: TeamRole,
    @Ctx() context: GraphQLContext,
  ): Promise<Team> {
    return toTeam(await this.services.identity.setTeamMember(requirePrincipal(context), team, username, role));
  }

  @Mutation(() => Boolean, { description: 'Team admins: remove a member' })
  removeTeamMember(
    @Arg('team', () => String) team: string,
    @Arg('username', () => String) username: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.identity.removeTeamMember(requirePrincipal(context), team, username);
  }

  @Mutation(() => Boolean, { description: 'Team admins: make a user admin of one project' })
  grantProjectAdmin(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('username', () => String) username: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.identity.grantResourceAdmin(requirePrincipal(context), 'PROJECT', entity, project, username);
  }

  @Mutation(() => Boolean, { description: 'Team admins: make a user admin of one registry' })
  grantRegistryAdmin(
    @Arg('entity', () => String) entity: string,
    @Arg('registry', () => String) registry: string,
    @Arg('username', () => String) username: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.identity.grantResourceAdmin(requirePrincipal(context), 'REGISTRY', entity, registry, username);
  }

  private async teamId(team: Team): Promise<string> {
    return team.id ?? (await this.services.identity.team(team.name))!.id;
  }
}
