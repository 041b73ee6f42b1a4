import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { ArtifactCollection, toCollection } from '../artifact/artifact.type.js';
import { Run, toRun } from '../run/run.type.js';
import type { RegistryServices } from '../services.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

@Resolver(() => Project)
export class RegistryProjectResolver {
  constructor(private readonly services: RegistryServices) {}

  @FieldResolver(() => Int, { description: 'Number of runs logged in the project' })
  runCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    return this.services.store.countRuns(project.entity, project.name);
  }

  @FieldResolver(() => [Run])
  async runs(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<Run[]> {
    requireTeamMember(context, project.entity);
    return (await this.services.store.runsOf(project.entity, project.name)).map(toRun);
  }

  @FieldResolver(() => [ArtifactCollection])
  async artifactCollections(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<ArtifactCollection[]> {
    requireTeamMember(context, project.entity);
    return (await this.services.store.collectionsOf(project.entity, 'PROJECT', project.name)).map(toCollection);
  }
}
