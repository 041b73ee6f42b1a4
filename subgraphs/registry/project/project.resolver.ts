import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { pageSize, toConnection, type Connection } from '../../../platform/graphql/connection.js';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { ArtifactCollection, ArtifactCollectionConnection, toCollection } from '../artifact/artifact.type.js';
import { COLLECTION_PAGING, pageByName, RUN_PAGES, RUN_PAGING, runCursor, runPosition } from '../paging.js';
import { Run, RunConnection, toRun } from '../run/run.type.js';
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

  @FieldResolver(() => RunConnection, { description: "The project's runs, newest first" })
  async runs(
    @Root() project: Project,
    @Arg('first', () => Int, { nullable: true, description: RUN_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: RUN_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<Run>> {
    requireTeamMember(context, project.entity);
    const size = pageSize(first, RUN_PAGES);
    const rows = await this.services.store.runsOf(project.entity, project.name, size + 1, runPosition(after));
    return toConnection(rows, size, { after, cursorOf: runCursor, toNode: toRun });
  }

  @FieldResolver(() => ArtifactCollectionConnection, { description: "The project's artifact collections, by name" })
  artifactCollections(
    @Root() project: Project,
    @Arg('first', () => Int, { nullable: true, description: COLLECTION_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: COLLECTION_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<ArtifactCollection>> {
    requireTeamMember(context, project.entity);
    return pageByName(first, after, (page) => this.services.store.collectionsOf(project.entity, 'PROJECT', project.name, page), toCollection);
  }
}
