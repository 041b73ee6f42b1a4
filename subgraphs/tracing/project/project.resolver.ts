import { Arg, Ctx, FieldResolver, Float, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { BadRequestError } from '../../../platform/errors.js';
import { decodeCursor, encodeCursor, isOffset, pageSize, pagingDescriptions, toConnection } from '../../../platform/graphql/connection.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { MAX_CALLS_PAGE } from '../call/call.schemas.js';
import { Call, CallConnection, CallFilter, CallSortInput, toCall } from '../call/call.type.js';
import { FeedbackSortInput } from '../feedback/feedback-sort.type.js';
import { Feedback, FeedbackAggregate, toFeedback, toFeedbackAggregate } from '../feedback/feedback.type.js';
import { ObjectSortInput, TraceTableRow, TraceObject, toTraceObject } from '../object/object.type.js';
import { Score, toScore } from '../score/score.type.js';
import type { TracingServices } from '../services.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

/** Weave's stream_query pages through calls 10,000 at a time; dashboards ask for less. */
const CALL_PAGES = { default: 100, max: MAX_CALLS_PAGE };
const CALL_PAGING = pagingDescriptions(CALL_PAGES, 'call');

const QUERY_DESCRIPTION = 'Weave query expression {"$expr": …} ($and $or $not $eq $gt $gte $in $contains $getField $literal $convert); see docs/tracing.md';


/** Reads of the tracing family, as fields of the Project entity that identity owns. */
@Resolver(() => Project)
export class TracingProjectResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => Int, { description: 'Number of calls in the project that filter and query select (POST /calls/query_stats)' })
  callCount(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('filter', () => CallFilter, { nullable: true }) filter: CallFilter | null,
    @Arg('query', () => JSONObjectScalar, { nullable: true, description: QUERY_DESCRIPTION }) query: Record<string, unknown> | null,
  ): Promise<number> {
    return this.services.calls.count(projectIdOf(project, context), { filter, query });
  }

  @FieldResolver(() => Call, { nullable: true })
  async call(@Root() project: Project, @Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<Call | null> {
    const row = await this.services.calls.read(projectIdOf(project, context), id);
    return row ? toCall(row) : null;
  }

  @FieldResolver(() => CallConnection, { description: 'Calls, oldest start first unless sortBy says otherwise' })
  async calls(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('filter', () => CallFilter, { nullable: true }) filter: CallFilter | null,
    @Arg('first', () => Int, { nullable: true, description: CALL_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: CALL_PAGING.after }) after: string | null,
    @Arg('sortBy', () => [CallSortInput], { nullable: true }) sortBy: CallSortInput[] | null,
    @Arg('query', () => JSONObjectScalar, { nullable: true, description: QUERY_DESCRIPTION }) query: Record<string, unknown> | null,
    @Arg('columns', () => [String], {
      nullable: true,
      description:
        "Weave's columns: the call columns to read (a dotted entry selects its first segment's column); id, projectId, " +
        'traceId, opName and startedAt always; summary brings endedAt, exception and displayName. Others are null. ' +
        'Absent or empty: every column',
    })
    columns: string[] | null,
    @Arg('expandColumns', () => [String], {
      nullable: true,
      description:
        "Weave's expand_columns: dotted paths into inputs/output/attributes/summary whose object refs are replaced by the " +
        "objects' values (with _ref added to JSON objects); refs that resolve to nothing stay as they are",
    })
    expandColumns: string[] | null,
    @Arg('returnExpandedColumnValues', () => Boolean, {
      nullable: true,
      defaultValue: true,
      description: "Weave's return_expanded_column_values: false checks expandColumns but leaves the refs for the client to resolve",
    })
    returnExpandedColumnValues: boolean,
  ): Promise<CallConnection> {
    const size = pageSize(first, CALL_PAGES);
    // Calls sort by any column or JSON path, so a cursor is the position in that order (an offset), not a keyset.
    const offset = decodeCursor(after, isOffset) ?? 0;
    const search = { filter, query, sortBy, columns, expandColumns, returnExpandedColumnValues: returnExpandedColumnValues !== false };
    const rows = await this.services.calls.search(projectIdOf(project, context), search, size + 1, offset);
    let position = offset;
    return toConnection(rows, size, { after, toNode: toCall, cursorOf: () => encodeCursor(++position) });
  }

  @FieldResolver(() => Call, { nullable: true, description: 'A prediction of the evaluation API' })
  async prediction(@Root() project: Project, @Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<Call | null> {
    const row = await this.services.calls.read(projectIdOf(project, context), id);
    return row?.kind === 'prediction' ? toCall(row) : null;
  }

  @FieldResolver(() => Call, { nullable: true, description: 'An evaluation run of the evaluation API' })
  async evaluationRun(@Root() project: Project, @Arg('id', () => String) id: string, @Ctx() context: GraphQLContext): Promise<Call | null> {
    const row = await this.services.calls.read(projectIdOf(project, context), id);
    return row?.kind === 'evaluation_run' ? toCall(row) : null;
  }

  @FieldResolver(() => [Score])
  async scores(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('predictionId', () => String, { nullable: true }) predictionId: string | null,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 100 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
  ): Promise<Score[]> {
    const records = await this.services.scores.scores(projectIdOf(project, context), { predictionId, limit: clamp(limit), offset: Math.max(0, offset) });
    return records.map(toScore);
  }

  @FieldResolver(() => TraceObject, { nullable: true, description: 'digest may be a digest, "latest" or "v<N>"' })
  async traceObject(
    @Root() project: Project,
    @Arg('objectId', () => String) objectId: string,
    @Arg('digest', () => String, { defaultValue: 'latest' }) digest: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TraceObject | null> {
    const row = await this.services.objects.readObject(projectIdOf(project, context), objectId, digest);
    return row ? toTraceObject(row) : null;
  }

  @FieldResolver(() => [TraceObject])
  async traceObjects(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('objectIds', () => [String], { nullable: true }) objectIds: string[] | null,
    @Arg('latestOnly', () => Boolean, { nullable: true }) latestOnly: boolean | null,
    @Arg('baseObjectClasses', () => [String], { nullable: true }) baseObjectClasses: string[] | null,
    @Arg('isOp', () => Boolean, { nullable: true }) isOp: boolean | null,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 1000 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
    @Arg('sortBy', () => [ObjectSortInput], { nullable: true, description: 'Before the name and version order' }) sortBy: ObjectSortInput[] | null,
  ): Promise<TraceObject[]> {
    const rows = await this.services.objects.queryObjects(
      projectIdOf(project, context),
      { objectIds, latestOnly, baseObjectClasses, isOp },
      clamp(limit),
      Math.max(0, offset),
      sortBy,
    );
    return rows.map(toTraceObject);
  }

  @FieldResolver(() => [TraceTableRow], { description: 'Rows of a table in their original order' })
  async traceTableRows(
    @Root() project: Project,
    @Arg('digest', () => String) digest: string,
    @Ctx() context: GraphQLContext,
    @Arg('rowDigests', () => [String], { nullable: true }) rowDigests: string[] | null,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 10_000 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
  ): Promise<TraceTableRow[]> {
    const rows = await this.services.objects.tableRows(projectIdOf(project, context), digest, rowDigests, clamp(limit), Math.max(0, offset));
    return rows.map((row) => ({ digest: row.digest, val: row.val, originalIndex: row.original_index }));
  }

  @FieldResolver(() => String, { description: 'The bytes of a stored file, base64' })
  async traceFileContent(@Root() project: Project, @Arg('digest', () => String) digest: string, @Ctx() context: GraphQLContext): Promise<string> {
    return (await this.services.objects.readFile(projectIdOf(project, context), digest)).toString('base64');
  }

  @FieldResolver(() => [Feedback])
  async feedback(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('weaveRefs', () => [String], { nullable: true }) weaveRefs: string[] | null,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 1000 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
    @Arg('newestFirst', () => Boolean, { nullable: true, defaultValue: false }) newestFirst: boolean,
    @Arg('query', () => JSONObjectScalar, { nullable: true, description: QUERY_DESCRIPTION }) query: Record<string, unknown> | null,
    @Arg('sortBy', () => [FeedbackSortInput], { nullable: true, description: 'Sort keys before the creation order' }) sortBy: FeedbackSortInput[] | null,
  ): Promise<Feedback[]> {
    const rows = await this.services.feedback.query(projectIdOf(project, context), {
      weaveRefs,
      query,
      sortBy,
      limit: clamp(limit),
      offset: Math.max(0, offset),
      descending: newestFirst,
    });
    return rows.map(toFeedback);
  }

  @FieldResolver(() => FeedbackAggregate, { description: 'The same arguments and rules as POST /feedback/aggregate' })
  async feedbackAggregate(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('afterMs', () => Float) afterMs: number,
    @Arg('beforeMs', () => Float) beforeMs: number,
    @Arg('timeBucketSeconds', () => Float, { nullable: true }) timeBucketSeconds: number | null,
    @Arg('feedbackTypes', () => [String], { nullable: true }) feedbackTypes: string[] | null,
    @Arg('tags', () => [String], { nullable: true }) tags: string[] | null,
    @Arg('ratingMin', () => Float, { nullable: true }) ratingMin: number | null,
    @Arg('ratingMax', () => Float, { nullable: true }) ratingMax: number | null,
    @Arg('monitorIds', () => [String], { nullable: true }) monitorIds: string[] | null,
    @Arg('scorerIds', () => [String], { nullable: true }) scorerIds: string[] | null,
    @Arg('spanAgentNames', () => [String], { nullable: true }) spanAgentNames: string[] | null,
    @Arg('spanTypes', () => [String], { nullable: true }) spanTypes: string[] | null,
    @Arg('groupBy', () => [String], { nullable: true }) groupBy: string[] | null,
  ): Promise<FeedbackAggregate> {
    const projectId = projectIdOf(project, context);
    // The REST body's names, so validation issues point at the same `loc` for GraphQL and REST callers.
    const request = withoutAbsent({
      after_ms: afterMs,
      before_ms: beforeMs,
      time_bucket_seconds: timeBucketSeconds,
      feedback_types: feedbackTypes,
      tags,
      rating_min: ratingMin,
      rating_max: ratingMax,
      monitor_ids: monitorIds,
      scorer_ids: scorerIds,
      span_agent_names: spanAgentNames,
      span_types: spanTypes,
      group_by: groupBy,
    });
    return toFeedbackAggregate(await this.services.feedback.aggregate(projectId, request));
  }
}

function projectIdOf(project: Project, context: GraphQLContext): string {
  requireTeamMember(context, project.entity);
  return `${project.entity}/${project.name}`;
}

function clamp(limit: number): number {
  return Math.min(Math.max(0, limit), MAX_CALLS_PAGE);
}

function withoutAbsent(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
}
