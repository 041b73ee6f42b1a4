import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, requireTeamMember } from '../../../platform/auth/authorize.js';
import { BadRequestError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { IdentityServices } from '../services.js';
import { Team } from '../team/team.type.js';
import { toTeam } from '../team/team.resolver.js';
import { Project, toProject } from './project.type.js';
import { UpsertModelInput, UpsertModelPayload } from './upsert-model.type.js';

/** The project query's owner, named `entity` (Trellis) or `entityName` (W&B's clients); one of them, or both alike. */
function oneEntity(entity: string | null | undefined, entityName: string | null | undefined): string {
  if (entity != null && entityName != null && entity !== entityName) {
    throw new BadRequestError('Give the owning entity once: entity and entityName differ', { param: 'entityName' });
  }
  const owner = entity ?? entityName;
  if (owner == null) throw new BadRequestError('Name the owning entity: entity (or entityName, as W&B clients send it) is required', { param: 'entity' });
  return owner;
}

@Resolver(() => Project)
export class ProjectResolver {
  constructor(private readonly services: IdentityServices) {}

  @Query(() => Project, { nullable: true, description: 'A project of a team the caller belongs to; null when there is none' })
  async project(
    @Arg('name', () => String, { description: 'Project name' }) name: string,
    @Arg('entity', () => String, { nullable: true, description: 'The owning team (entity); give this or entityName' }) entity: string | null,
    @Arg('entityName', () => String, {
      nullable: true,
      description: "The owning team (entity) under W&B's argument name, as the Weave SDKs send it (`project(name:, entityName:)`); give this or entity",
    })
    entityName: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Project | null> {
    const owner = oneEntity(entity, entityName);
    requireTeamMember(context, owner);
    const row = await this.services.identity.project(owner, name);
    return row ? toProject(row) : null;
  }

  @FieldResolver(() => String, { nullable: true, description: "The project's description (set with upsertModel); null when none was given" })
  description(@Root() project: Project): Promise<string | null> {
    return this.services.identity.projectDescription(project.id);
  }

  @Mutation(() => UpsertModelPayload, {
    description:
      "W&B's project upsert, as the Weave SDKs call it: the project, created on first use (team members), with its description replaced when one is given",
  })
  async upsertModel(@Arg('input', () => UpsertModelInput, { description: 'The project' }) input: UpsertModelInput, @Ctx() context: GraphQLContext): Promise<UpsertModelPayload> {
    const caller = requirePrincipal(context);
    const { project, inserted } = await this.services.identity.upsertProject(caller, input.entityName ?? caller.defaultEntity, input.name, input.description);
    const model = toProject(project);
    return Object.assign(new UpsertModelPayload(), { model, project: model, inserted });
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
