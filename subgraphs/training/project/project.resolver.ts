import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TrainingServices } from '../services.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

@Resolver(() => Project)
export class TrainingProjectResolver {
  constructor(private readonly services: TrainingServices) {}

  @FieldResolver(() => Int, { description: 'Number of trainable models in the project' })
  trainingModelCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    return this.services.store.countModels(project.entity, project.name);
  }
}
