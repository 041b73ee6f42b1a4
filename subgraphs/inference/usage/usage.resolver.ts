import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { BadRequestError } from '../../../platform/errors.js';
import { defineProjectRef, defineTeamRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { InferenceServices } from '../services.js';
import type { UsageGroupBy } from './usage.store.js';
import { InferenceUsageBucket, InferenceUsageRecord, UsageGroupByEnum } from './usage.type.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;
export const Team = defineTeamRef();
export type Team = InstanceType<typeof Team>;

const FROM = 'Inclusive lower bound on the request time (default: no bound)';
const TO = 'Exclusive upper bound on the request time (default: no bound)';

@Resolver(() => Project)
export class ProjectUsageResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => [InferenceUsageBucket], { description: 'Inference usage attributed to the project' })
  inferenceUsage(
    @Root() project: Project,
    @Arg('from', () => Date, { nullable: true, description: FROM }) from: Date | null,
    @Arg('to', () => Date, { nullable: true, description: TO }) to: Date | null,
    @Arg('groupBy', () => [UsageGroupByEnum], { defaultValue: [] }) groupBy: UsageGroupBy[],
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageBucket[]> {
    requireTeamMember(context, project.entity);
    return this.services.usageQueries.aggregate({ entity: project.entity, project: project.name, from, to }, groupBy);
  }

  @FieldResolver(() => Int, { description: 'Number of inference requests attributed to the project' })
  async inferenceRequestCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    const [total] = await this.services.usageQueries.aggregate({ entity: project.entity, project: project.name }, []);
    return total?.requests ?? 0;
  }

  @FieldResolver(() => [InferenceUsageRecord], { description: 'The most recent inference requests of the project, newest first' })
  async inferenceUsageRecords(
    @Root() project: Project,
    @Arg('limit', () => Int, { defaultValue: 100 }) limit: number,
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageRecord[]> {
    requireTeamMember(context, project.entity);
    if (limit < 1 || limit > 1000) throw new BadRequestError('limit must be between 1 and 1000', { param: 'limit' });
    return this.services.usageQueries.recent({ entity: project.entity, project: project.name }, limit);
  }
}

@Resolver(() => Team)
export class TeamUsageResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => [InferenceUsageBucket], { description: 'Inference usage of all the team\'s projects' })
  inferenceUsage(
    @Root() team: Team,
    @Arg('from', () => Date, { nullable: true, description: FROM }) from: Date | null,
    @Arg('to', () => Date, { nullable: true, description: TO }) to: Date | null,
    @Arg('groupBy', () => [UsageGroupByEnum], { defaultValue: [] }) groupBy: UsageGroupBy[],
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageBucket[]> {
    requireTeamMember(context, team.name);
    return this.services.usageQueries.aggregate({ entity: team.name, from, to }, groupBy);
  }
}
