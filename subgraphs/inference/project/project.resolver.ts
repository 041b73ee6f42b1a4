import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { InferenceServices } from '../services.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

@Resolver(() => Project)
export class InferenceProjectResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => Int, { description: 'Number of inference requests attributed to the project' })
  inferenceRequestCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    return this.services.store.countRequests(project.entity, project.name);
  }
}
