import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { requireProjectAdmin, requireTeamMember } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { InferenceServices } from '../services.js';
import { Project } from '../usage/usage.resolver.js';

@Resolver(() => Project)
export class TraceSettingsResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => Boolean, {
    description: 'Whether chat completions that name this project are also recorded as calls in its traces (default true)',
  })
  inferenceTracing(@Root() project: Project, @Ctx() context: GraphQLContext): boolean {
    requireTeamMember(context, project.entity);
    return this.services.traceSettings.isEnabled(project.entity, project.name);
  }

  @Mutation(() => Boolean, { description: 'Project admins: switch recording the project\'s chat completions as calls on or off' })
  setInferenceTracing(
    @Arg('entity', () => String, { description: 'Team of the project' }) entity: string,
    @Arg('project', () => String, { description: 'Project name' }) project: string,
    @Arg('enabled', () => Boolean, { description: 'Record completions as calls (true) or not (false)' }) enabled: boolean,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requireProjectAdmin(context, entity, project);
    return this.services.traceSettings.set(entity, project, enabled);
  }
}
