import { Arg, Ctx, FieldResolver, Int, Mutation, Resolver, Root } from 'type-graphql';
import { requireProjectAdmin, requireTeamMember } from '../../../platform/auth/authorize.js';
import { MAX_RETENTION_DAYS } from '../../../platform/config.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Project } from '../project/project.resolver.js';
import type { TracingServices } from '../services.js';

/** A project's trace retention, as fields of the Project entity and a mutation for its admins. */
@Resolver(() => Project)
export class TraceRetentionResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => Int, {
    nullable: true,
    description: "Days the project's traces are kept, set for this project; null when it follows the platform default (traceRetentionEffectiveDays)",
  })
  async traceRetentionDays(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number | null> {
    requireTeamMember(context, project.entity);
    return (await this.services.traceRetention.ownDays(projectId(project))) ?? null;
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description:
      "Days the project's traces are kept: its own retention, else the platform default (TRELLIS_TRACE_RETENTION_DAYS); null: forever. A trace goes whole once its root call started longer ago",
  })
  async traceRetentionEffectiveDays(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number | null> {
    requireTeamMember(context, project.entity);
    return (await this.services.traceRetention.effectiveDays(projectId(project))) ?? null;
  }

  @Mutation(() => Project, {
    description: `Project admins (and admins of its team): keep the project's traces this many days (1 to ${MAX_RETENTION_DAYS}), or null for the platform default. Older traces are deleted in the background`,
  })
  async setTraceRetention(
    @Arg('entity', () => String, { description: 'Team of the project' }) entity: string,
    @Arg('project', () => String, { description: 'Project name' }) project: string,
    @Arg('days', () => Int, { nullable: true, description: `Days to keep traces (1 to ${MAX_RETENTION_DAYS}); null: the platform default` }) days: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Project> {
    requireProjectAdmin(context, entity, project);
    await this.services.traceRetention.set(`${entity}/${project}`, days);
    return { entity, name: project };
  }
}

const projectId = (project: Project) => `${project.entity}/${project.name}`;
