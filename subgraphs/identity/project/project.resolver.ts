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

  @Query(() => Project, { nullable: true })
  async project(
    @Arg('entity', () => String) entity: string,
    @Arg('name', () => String) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Project | null> {
    requireTeamMember(context, entity);
    const row = await this.services.identity.project(entity, name);
    return row ? toProject(row) : null;
  }

  @FieldResolver(() => Team)
  async team(@Root() project: Project): Promise<Team> {
    return toTeam((await this.services.identity.team(project.entity))!);
  }

  @Mutation(() => Project)
  async createProject(
    @Arg('entity', () => String) entity: string,
    @Arg('name', () => String) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Project> {
    return toProject(await this.services.identity.createProject(requirePrincipal(context), entity, name));
  }

  @Mutation(() => Project, { description: 'Returns the project, creating it on first use (team members)' })
  async ensureProject(
    @Arg('entity', () => String) entity: string,
    @Arg('name', () => String) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Project> {
    return toProject(await this.services.identity.ensureProject(requirePrincipal(context), entity, name));
  }
}
