import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { decodeCursor, encodeCursor, pageSize, pagingDescriptions, toConnection, type PageLimits } from '../../../platform/graphql/connection.js';
import { defineProjectRef, defineTeamRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { InferenceServices } from '../services.js';
import { MAX_SERIES_BUCKETS } from './usage-queries.js';
import type { UsageGroupBy } from './usage.store.js';
import { InferenceUsageBucket, InferenceUsageRecordConnection, UsageGroupByEnum } from './usage.type.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;
export const Team = defineTeamRef();
export type Team = InstanceType<typeof Team>;

const FROM = 'Inclusive lower bound on the request time (default: no bound)';
const TO = 'Exclusive upper bound on the request time (default: no bound)';
const GROUP_BY = 'Split the totals by these dimensions (none: one bucket for everything)';
const SERIES = {
  description:
    'Usage over time for charts: one bucket per `bucketSeconds` interval (aligned on the Unix epoch) within [from, to) and per group, ' +
    'ordered by time; `period` is the bucket start, intervals without requests are absent',
  from: 'Inclusive start of the series',
  to: 'Exclusive end of the series',
  bucketSeconds: `Length of a bucket in seconds (at most ${MAX_SERIES_BUCKETS} buckets between from and to)`,
  groupBy: 'Split each bucket by these dimensions (default MODEL; DAY and HOUR are not allowed here)',
};

/** Usage records are paged newest first by id (a keyset: a page does not shift as new requests are recorded). */
const RECORD_PAGES: PageLimits = { default: 100, max: 1_000 };
const RECORD_PAGING = pagingDescriptions(RECORD_PAGES, 'usage record');
const isRecordId = (value: unknown): value is string => typeof value === 'string' && /^[0-9]{1,19}$/.test(value);

@Resolver(() => Project)
export class ProjectUsageResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => [InferenceUsageBucket], { description: 'Inference usage attributed to the project, totalled per group' })
  inferenceUsage(
    @Root() project: Project,
    @Arg('from', () => Date, { nullable: true, description: FROM }) from: Date | null,
    @Arg('to', () => Date, { nullable: true, description: TO }) to: Date | null,
    @Arg('groupBy', () => [UsageGroupByEnum], { defaultValue: [], description: GROUP_BY }) groupBy: UsageGroupBy[],
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageBucket[]> {
    requireTeamMember(context, project.entity);
    return this.services.usageQueries.aggregate({ entity: project.entity, project: project.name, from, to }, groupBy);
  }

  @FieldResolver(() => [InferenceUsageBucket], { description: `${SERIES.description} (the project's requests)` })
  inferenceUsageSeries(
    @Root() project: Project,
    @Arg('from', () => Date, { description: SERIES.from }) from: Date,
    @Arg('to', () => Date, { description: SERIES.to }) to: Date,
    @Arg('bucketSeconds', () => Int, { description: SERIES.bucketSeconds }) bucketSeconds: number,
    @Arg('groupBy', () => [UsageGroupByEnum], { defaultValue: ['MODEL'], description: SERIES.groupBy }) groupBy: UsageGroupBy[],
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageBucket[]> {
    requireTeamMember(context, project.entity);
    return this.services.usageQueries.series({ entity: project.entity, project: project.name, from, to }, bucketSeconds, groupBy);
  }

  @FieldResolver(() => Int, { description: 'Number of inference requests attributed to the project' })
  async inferenceRequestCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    const [total] = await this.services.usageQueries.aggregate({ entity: project.entity, project: project.name }, []);
    return total?.requests ?? 0;
  }

  @FieldResolver(() => InferenceUsageRecordConnection, { description: "The project's inference requests and what happened to each, newest first" })
  async inferenceUsageRecords(
    @Root() project: Project,
    @Arg('first', () => Int, { nullable: true, description: RECORD_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: RECORD_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<InstanceType<typeof InferenceUsageRecordConnection>> {
    requireTeamMember(context, project.entity);
    const size = pageSize(first, RECORD_PAGES);
    const beforeId = decodeCursor(after, isRecordId);
    const records = await this.services.usageQueries.recent({ entity: project.entity, project: project.name }, size + 1, beforeId);
    return toConnection(records, size, { after, cursorOf: (record) => encodeCursor(record.id), toNode: (record) => record });
  }
}

@Resolver(() => Team)
export class TeamUsageResolver {
  constructor(private readonly services: InferenceServices) {}

  @FieldResolver(() => [InferenceUsageBucket], { description: "Inference usage of all the team's projects, totalled per group" })
  inferenceUsage(
    @Root() team: Team,
    @Arg('from', () => Date, { nullable: true, description: FROM }) from: Date | null,
    @Arg('to', () => Date, { nullable: true, description: TO }) to: Date | null,
    @Arg('groupBy', () => [UsageGroupByEnum], { defaultValue: [], description: GROUP_BY }) groupBy: UsageGroupBy[],
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageBucket[]> {
    requireTeamMember(context, team.name);
    return this.services.usageQueries.aggregate({ entity: team.name, from, to }, groupBy);
  }

  @FieldResolver(() => [InferenceUsageBucket], { description: `${SERIES.description} (all the team's projects)` })
  inferenceUsageSeries(
    @Root() team: Team,
    @Arg('from', () => Date, { description: SERIES.from }) from: Date,
    @Arg('to', () => Date, { description: SERIES.to }) to: Date,
    @Arg('bucketSeconds', () => Int, { description: SERIES.bucketSeconds }) bucketSeconds: number,
    @Arg('groupBy', () => [UsageGroupByEnum], { defaultValue: ['MODEL'], description: SERIES.groupBy }) groupBy: UsageGroupBy[],
    @Ctx() context: GraphQLContext,
  ): Promise<InferenceUsageBucket[]> {
    requireTeamMember(context, team.name);
    return this.services.usageQueries.series({ entity: team.name, from, to }, bucketSeconds, groupBy);
  }
}
