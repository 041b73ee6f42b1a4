import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
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
}
