import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { offsetAfter, pageSize, pagingDescriptions, toOffsetConnection, type PageLimits } from '../../../platform/graphql/connection.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { CALLS_ARGUMENTS, CallFilterInput, CallSearchInput, CallSortInput } from '../call/call.inputs.js';
import { MAX_CALLS_PAGE } from '../call/call.schemas.js';
import type { CallsFilterInput } from '../call/call.store.js';
import { Call, CallConnection, toCall } from '../call/call.type.js';
import { FEEDBACK_ARGUMENTS, FeedbackAggregateInput, FeedbackSortInput } from '../feedback/feedback.inputs.js';
import { FeedbackAggregate, FeedbackConnection, toFeedback, toFeedbackAggregate } from '../feedback/feedback.type.js';
import { OBJECTS_ARGUMENTS, ObjectSortInput, TraceObjectFilterInput, TraceTableRowFilterInput } from '../object/object.inputs.js';
import { TraceObject, TraceObjectConnection, TraceTableRowConnection, toTraceObject } from '../object/object.type.js';
import { TraceQueryInput, queryToWire, type Query } from '../query/query.inputs.js';
import type { SortByInput } from '../query/query-request.js';
import { ScoreConnection, toScore } from '../score/score.type.js';
import type { TracingServices } from '../services.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

/**
 * Page limits of the project's lists. The REST routes page with Weave's limit/offset (an offset is a cursor of these
 * connections) and answer at most 10,000 items per request, so every list they read allows that much per page;
 * Weave's stream_query pages through calls 10,000 at a time. Dashboards ask for less.
 */
const CALL_PAGES: PageLimits = { default: 100, max: MAX_CALLS_PAGE };
const FEEDBACK_PAGES: PageLimits = { default: 100, max: 10_000 };
const OBJECT_PAGES: PageLimits = { default: 100, max: 10_000 };
const TABLE_ROW_PAGES: PageLimits = { default: 100, max: 10_000 };
/** No REST route lists scores; a page of them is a dashboard's. */
const SCORE_PAGES: PageLimits = { default: 100, max: 1_000 };

const CALL_PAGING = pagingDescriptions(CALL_PAGES, 'call');
const FEEDBACK_PAGING = pagingDescriptions(FEEDBACK_PAGES, 'feedback record');
const OBJECT_PAGING = pagingDescriptions(OBJECT_PAGES, 'object version');
const TABLE_ROW_PAGING = pagingDescriptions(TABLE_ROW_PAGES, 'table row');
const SCORE_PAGING = pagingDescriptions(SCORE_PAGES, 'score');

const QUERY = { nullable: true, description: 'Only the rows for which this Weave query holds (see docs/tracing.md for the fields and comparison rules)' };
const CALL_FILTER = { nullable: true, description: 'Only the calls this filter selects' };
const CALL_SEARCH = { nullable: true, description: 'Only the calls with these words in their inputs or output, started in this window, with these attributes and feedback' };

/** The wire form of typed sort keys (directions `asc`/`desc`), for the services. */
const sortToWire = (sortBy: unknown[] | null, input: { toWire(value: unknown): unknown }): SortByInput[] | null =>
  sortBy && sortBy.map((key) => input.toWire(key) as SortByInput);

/** The wire form of a typed search (the service validates it). */
const searchToWire = (search: unknown) => (search === null || search === undefined ? null : CallSearchInput.toWire(search));

/** Reads of the tracing family, as fields of the Project entity that identity owns. */
@Resolver(() => Project)
export class TracingProjectResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => Int, {
    description: 'How many calls of the project the filter, the query and the search select (all without any). Also at POST /traces/calls/query_stats (without search).',
  })
  callCount(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('filter', () => CallFilterInput.argType(), CALL_FILTER) filter: CallsFilterInput | null,
    @Arg('query', () => TraceQueryInput, QUERY) query: Query | null,
    @Arg('search', () => CallSearchInput.argType(), CALL_SEARCH) search: unknown,
    @Arg('atMost', () => Int, {
      nullable: true,
      description:
        'Stop counting after atMost + 1 calls: an answer above atMost means more than atMost match (a list over millions of calls ' +
        'shows "more than 10,000" without reading them all); 1 to 1,000,000. Absent: the exact count',
    })
    atMost: number | null,
  ): Promise<number> {
    const projectId = projectIdOf(project, context);
    return CALLS_ARGUMENTS.run(() => this.services.calls.count(projectId, { filter, query: queryToWire(query), search: searchToWire(search) }, atMost));
  }

  @FieldResolver(() => Call, { nullable: true, description: 'One call of the project, by id; null when there is none. Also at POST /traces/call/read.' })
  async call(@Root() project: Project, @Arg('id', () => String, { description: 'The call id' }) id: string, @Ctx() context: GraphQLContext): Promise<Call | null> {
    const row = await this.services.calls.read(projectIdOf(project, context), id);
    return row ? toCall(row) : null;
  }

  @FieldResolver(() => CallConnection, {
    description: 'The calls the filter and the query select, oldest start first unless sortBy says otherwise. Also at POST /traces/calls/query and /traces/calls/stream_query.',
  })
  async calls(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('filter', () => CallFilterInput.argType(), CALL_FILTER) filter: CallsFilterInput | null,
    @Arg('first', () => Int, { nullable: true, description: CALL_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: CALL_PAGING.after }) after: string | null,
    @Arg('sortBy', () => [CallSortInput.argType()], { nullable: true, description: 'Sort keys, in order, before the call id' }) sortBy: unknown[] | null,
    @Arg('query', () => TraceQueryInput, QUERY) query: Query | null,
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
    @Arg('search', () => CallSearchInput.argType(), CALL_SEARCH) callSearch: unknown,
  ): Promise<CallConnection> {
    const projectId = projectIdOf(project, context);
    const size = pageSize(first, CALL_PAGES);
    // Calls sort by any column or JSON path, so a cursor is the position in that order (an offset), not a keyset.
    const offset = offsetAfter(after);
    const search = {
      filter,
      query: queryToWire(query),
      sortBy: sortToWire(sortBy, CallSortInput),
      columns,
      expandColumns,
      returnExpandedColumnValues: returnExpandedColumnValues !== false,
      search: searchToWire(callSearch),
    };
    const rows = await CALLS_ARGUMENTS.run(() => this.services.calls.search(projectId, search, size + 1, offset));
    return toOffsetConnection(rows, size, offset, { after, toNode: toCall });
  }

  @FieldResolver(() => Call, { nullable: true, description: 'A prediction of the evaluation API, by id; null when there is none. Also at GET /traces/v2/{entity}/{project}/predictions/{id}.' })
  async prediction(@Root() project: Project, @Arg('id', () => String, { description: 'The prediction id' }) id: string, @Ctx() context: GraphQLContext): Promise<Call | null> {
    const row = await this.services.calls.read(projectIdOf(project, context), id);
    return row?.kind === 'prediction' ? toCall(row) : null;
  }

  @FieldResolver(() => Call, {
    nullable: true,
    description: 'An evaluation run of the evaluation API, by id (its predictions and scores are its children); null when there is none. Also at GET /traces/v2/{entity}/{project}/evaluation_runs/{id}.',
  })
  async evaluationRun(@Root() project: Project, @Arg('id', () => String, { description: 'The evaluation run id' }) id: string, @Ctx() context: GraphQLContext): Promise<Call | null> {
    const row = await this.services.calls.read(projectIdOf(project, context), id);
    return row?.kind === 'evaluation_run' ? toCall(row) : null;
  }

  @FieldResolver(() => ScoreConnection, { description: 'Scores of the evaluation API, in the order they were recorded' })
  async scores(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('predictionId', () => String, { nullable: true, description: 'Only the scores of this prediction' }) predictionId: string | null,
    @Arg('first', () => Int, { nullable: true, description: SCORE_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: SCORE_PAGING.after }) after: string | null,
  ): Promise<ScoreConnection> {
    const projectId = projectIdOf(project, context);
    const size = pageSize(first, SCORE_PAGES);
    const offset = offsetAfter(after);
    const records = await this.services.scores.scores(projectId, { predictionId, limit: size + 1, offset });
    return toOffsetConnection(records, size, offset, { after, toNode: toScore });
  }

  @FieldResolver(() => TraceObject, { nullable: true, description: 'One version of a named object; null when there is none. Also at POST /traces/obj/read.' })
  async traceObject(
    @Root() project: Project,
    @Arg('objectId', () => String, { description: 'The object name' }) objectId: string,
    @Arg('digest', () => String, { defaultValue: 'latest', description: 'The version: a digest, "latest" or "v<N>" (the N-th version, from 0)' }) digest: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TraceObject | null> {
    const row = await this.services.objects.readObject(projectIdOf(project, context), objectId, digest);
    return row ? toTraceObject(row) : null;
  }

  @FieldResolver(() => TraceObjectConnection, {
    description: 'Object versions the filter selects, in sortBy order, then by name and version. Also at POST /traces/objs/query.',
  })
  async traceObjects(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('filter', () => TraceObjectFilterInput.argType(), { nullable: true, description: 'Only the versions this filter selects' })
    filter: Parameters<TracingServices['objects']['queryObjects']>[1] | null,
    @Arg('sortBy', () => [ObjectSortInput.argType()], { nullable: true, description: 'Sort keys, in order, before the name and version order' }) sortBy: unknown[] | null,
    @Arg('first', () => Int, { nullable: true, description: OBJECT_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: OBJECT_PAGING.after }) after: string | null,
  ): Promise<TraceObjectConnection> {
    const projectId = projectIdOf(project, context);
    const size = pageSize(first, OBJECT_PAGES);
    const offset = offsetAfter(after);
    const rows = await OBJECTS_ARGUMENTS.run(() =>
      this.services.objects.queryObjects(projectId, filter ?? {}, size + 1, offset, sortToWire(sortBy, ObjectSortInput)),
    );
    return toOffsetConnection(rows, size, offset, { after, toNode: toTraceObject });
  }

  @FieldResolver(() => TraceTableRowConnection, { description: 'Rows of a stored table, in their original order. Also at POST /traces/table/query.' })
  async traceTableRows(
    @Root() project: Project,
    @Arg('digest', () => String, { description: "The table's digest" }) digest: string,
    @Ctx() context: GraphQLContext,
    @Arg('filter', () => TraceTableRowFilterInput.argType(), { nullable: true, description: 'Only the rows this filter selects' })
    filter: { rowDigests?: string[] | null } | null,
    @Arg('first', () => Int, { nullable: true, description: TABLE_ROW_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: TABLE_ROW_PAGING.after }) after: string | null,
  ): Promise<TraceTableRowConnection> {
    const projectId = projectIdOf(project, context);
    const size = pageSize(first, TABLE_ROW_PAGES);
    const offset = offsetAfter(after);
    const rows = await this.services.objects.tableRows(projectId, digest, filter?.rowDigests ?? null, size + 1, offset);
    return toOffsetConnection(rows, size, offset, {
      after,
      toNode: (row) => ({ digest: row.digest, val: row.val, originalIndex: row.original_index }),
    });
  }

  @FieldResolver(() => String, { description: 'The bytes of a stored file, base64. Also at POST /traces/file/content.' })
  async traceFileContent(
    @Root() project: Project,
    @Arg('digest', () => String, { description: "The file's digest" }) digest: string,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    return (await this.services.objects.readFile(projectIdOf(project, context), digest)).toString('base64');
  }

  @FieldResolver(() => FeedbackConnection, {
    description: 'Feedback of the project the arguments select, in sortBy order, then oldest (or newest) first. Also at POST /traces/feedback/query.',
  })
  async feedback(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('weaveRefs', () => [String], { nullable: true, description: 'Only feedback on one of these calls or objects (refs)' }) weaveRefs: string[] | null,
    @Arg('query', () => TraceQueryInput, QUERY) query: Query | null,
    @Arg('sortBy', () => [FeedbackSortInput.argType()], { nullable: true, description: 'Sort keys, in order, before the creation order' }) sortBy: unknown[] | null,
    @Arg('newestFirst', () => Boolean, { nullable: true, defaultValue: false, description: 'The creation order newest first (default oldest first)' })
    newestFirst: boolean,
    @Arg('first', () => Int, { nullable: true, description: FEEDBACK_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: FEEDBACK_PAGING.after }) after: string | null,
  ): Promise<FeedbackConnection> {
    const projectId = projectIdOf(project, context);
    const size = pageSize(first, FEEDBACK_PAGES);
    const offset = offsetAfter(after);
    const options = { weaveRefs, query: queryToWire(query), sortBy: sortToWire(sortBy, FeedbackSortInput), limit: size + 1, offset, descending: newestFirst };
    const rows = await FEEDBACK_ARGUMENTS.run(() => this.services.feedback.query(projectId, options));
    return toOffsetConnection(rows, size, offset, { after, toNode: toFeedback });
  }

  @FieldResolver(() => FeedbackAggregate, {
    description: "Scorer feedback as a sparse time series: counts, tags and rating sums per time bucket and group. Also at POST /traces/feedback/aggregate.",
  })
  async feedbackAggregate(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('input', () => FeedbackAggregateInput.argType(), { description: 'The window, the filters, the buckets and the groups' }) input: unknown,
  ): Promise<FeedbackAggregate> {
    const projectId = projectIdOf(project, context);
    // The service validates the REST body's form, so GraphQL and REST callers meet the same rules.
    return toFeedbackAggregate(await FeedbackAggregateInput.handle(input, { arg: 'input', wire: ['body'] }, (request) => this.services.feedback.aggregate(projectId, request)));
  }
}

function projectIdOf(project: Project, context: GraphQLContext): string {
  requireTeamMember(context, project.entity);
  return `${project.entity}/${project.name}`;
}
