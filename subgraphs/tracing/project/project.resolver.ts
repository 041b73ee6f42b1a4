import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TracingServices } from '../services.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

@Resolver(() => Project)
export class TracingProjectResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => Int, { description: 'Number of calls recorded in the project' })
  callCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    return this.services.store.countCalls(`${project.entity}/${project.name}`);
  }
}
