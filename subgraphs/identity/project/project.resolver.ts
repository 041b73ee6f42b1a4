import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, requireTeamMember } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { IdentityServices } from '../services.js';
import { Team } from '../team/team.type.js';
import { toTeam } from '../team/team.resolver.js';
import { Project, toProject } from './project.type.js';

@Resolver(() => Project)
export class ProjectResolver {
  constructor(private readonly services: IdentityServices) {}

  @Query(() => Project, { nullable: true, description: 'A project of a team the caller belongs to; null when there is none' })
  async project(
    @Arg('entity', () => String, { description: 'The owning team (entity)' }) entity: string,
    @Arg('name', () => String, { description: 'Project name' }) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Project | null> {
    requireTeamMember(context, entity);
    const row = await this.services.identity.project(entity, name);
    return row ? toProject(row) : null;
  }

  @FieldResolver(() => Team, { description: 'The team (entity) owning the project' })
  async team(@Root() project: Project): Promise<Team> {
    return toTeam((await this.services.identity.team(project.entity))!);
  }

  @Mutation(() => Project, { description: 'Team members: create a project (CONFLICT when it exists)' })
  async createProject(
    @Arg('entity', () => String, { description: 'The owning team (entity)' }) entity: string,
    @Arg('name', () => String, { description: 'Project name' }) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Project> {
    return toProject(await this.services.identity.createProject(requirePrincipal(context), entity, name));
  }

  @Mutation(() => Project, { description: 'Returns the project, creating it on first use (team members)' })
  async ensureProject(
    @Arg('entity', () => String, { description: 'The owning team (entity)' }) entity: string,
    @Arg('name', () => String, { description: 'Project name' }) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Project> {
    return toProject(await this.services.identity.ensureProject(requirePrincipal(context), entity, name));
  }
}
