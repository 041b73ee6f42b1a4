import { Type } from '@sinclair/typebox';
import DataLoader from 'dataloader';
import { Arg, Ctx, FieldResolver, Int, Mutation, Resolver, Root } from 'type-graphql';
import { offsetAfter, pageSize, pagingDescriptions, toOffsetConnection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { FeedbackRow } from '../feedback/feedback.store.js';
import { Feedback, toFeedback } from '../feedback/feedback.type.js';
import { callRef } from '../refs.js';
import type { TracingServices } from '../services.js';
import { projectWriterOf, writerOf } from '../writer.js';
import {
  AT_END,
  AT_START,
  CallBatchItemInput,
  CallEndInput,
  CallStartInput,
  CallUpdateInput,
  CompletedCallInput,
  ProjectCallEndInput,
  ProjectCallStartInput,
} from './call.inputs.js';
import { CallBatchBody, CallUpdateBody, CompletedCallsBody, MAX_CALLS_PAGE } from './call.schemas.js';
import { feedbackSummaryLoader } from './call-feedback-summary.js';
import { CallFeedbackSummary, CallUser } from './call-list.type.js';
import { PREVIEW_LENGTH, previewOf } from './call-preview.js';
import { Call, CallConnection, CallStartResult, CallUpsertResult, toCall } from './call.type.js';

interface CallFeedbackKey {
  projectId: string;
  ref: string;
}
const feedbackLoaders = new WeakMap<GraphQLContext, DataLoader<CallFeedbackKey, FeedbackRow[], string>>();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Feedback rows read for one batch of calls (a page of calls is at most 10,000). */
const MAX_FEEDBACK_PER_BATCH = 100_000;

/** An evaluation run may have thousands of predictions and scores as children; a page is at most a calls page. */
const CHILD_PAGES = { default: 100, max: MAX_CALLS_PAGE };
const CHILD_PAGING = pagingDescriptions(CHILD_PAGES, 'child call');

/** What CallBatchBody asks of the batch list itself (at least one item), without its items' rules. */
const BatchListRules = Type.Array(Type.Unknown(), { minItems: CallBatchBody.properties.batch.minItems });

/** A GraphQL batch item (`{start}` or `{end}`) in Weave's wire shape (`{mode, req: {start}|{end}}`). */
function callBatchItemToWire(item: { start?: unknown; end?: unknown }, index: number): { mode: 'start' | 'end'; req: Record<string, unknown> } {
  if ((item.start == null) === (item.end == null)) {
    throw new ValidationFailedError([{ loc: ['items', index], msg: 'Give exactly one of start and end', type: 'value_error' }]);
  }
  return item.start != null
    ? { mode: 'start', req: { start: CallStartInput.toWire(item.start) } }
    : { mode: 'end', req: { end: CallEndInput.toWire(item.end) } };
}

/** Issues at `body.batch.<i>.req.start|end…` re-reported at `items.<i>.start|end…`. */
function relocateBatchIssues(error: unknown, batch: { mode: 'start' | 'end' }[]): unknown {
  return relocateIssues(error, (loc) => {
    const index = loc[2];
    if (loc[1] !== 'batch' || typeof index !== 'number' || !batch[index]) return loc;
    const input = batch[index].mode === 'start' ? CallStartInput : CallEndInput;
    return input.locate(loc, { arg: ['items', index, batch[index].mode], wire: ['body', 'batch', index, 'req', batch[index].mode] });
  });
}

function relocateIssues(error: unknown, locate: (loc: ValidationIssue['loc']) => ValidationIssue['loc']): unknown {
  if (!(error instanceof ValidationFailedError) || !error.issues) return error;
  return new ValidationFailedError(error.issues.map((issue) => ({ ...issue, loc: locate(issue.loc) })));
}

/** Call ingestion (the mutations behind the REST routes) and the links of a call. Reads are Project fields. */
@Resolver(() => Call)
export class CallResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => CallStartResult, { description: 'Records the start of a call (one traced operation). Also at POST /traces/call/start.' })
  async startCall(
    @Arg('input', () => CallStartInput.argType(), { description: 'The call as it starts' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<CallStartResult> {
    const { id, trace_id } = await CallStartInput.handle(input, AT_START, (start) => this.services.calls.start(writerOf(context), { start }));
    return { id, traceId: trace_id };
  }

  @Mutation(() => Boolean, { description: "Records the end of a call: its output or exception and its summary. Also at POST /traces/call/end." })
  async endCall(
    @Arg('input', () => CallEndInput.argType(), { description: 'The end of the call' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    await CallEndInput.handle(input, AT_END, (end) => this.services.calls.end(writerOf(context), { end }));
    return true;
  }

  @Mutation(() => [CallUpsertResult], {
    description:
      'Records a batch of call starts and ends, all or nothing: one bad item rejects the batch. The results follow the ' +
      'items (id and trace id for a start, nulls for an end). Also at POST /traces/call/upsert_batch.',
  })
  async upsertCalls(
    @Arg('items', () => [CallBatchItemInput.argType()], { description: 'The starts and ends, in order' }) items: unknown[],
    @Ctx() context: GraphQLContext,
  ): Promise<CallUpsertResult[]> {
    // The service validates each item (once), so the batch is not validated again: only its list's own rules are.
    validateOrThrow(BatchListRules, items, 'items');
    const batch = items.map((item, index) => callBatchItemToWire(item as { start?: unknown; end?: unknown }, index));
    try {
      const results = await this.services.calls.upsertBatch(writerOf(context), { batch });
      return results.map((result) => ({ id: result.id ?? null, traceId: result.trace_id ?? null }));
    } catch (error) {
      throw relocateBatchIssues(error, batch);
    }
  }

  @Mutation(() => Boolean, {
    description: 'Records calls that have already ended (start and end at once) in a project, all or nothing. Also at POST /traces/v2/{entity}/{project}/calls/complete.',
  })
  async completeCalls(
    @Arg('entity', () => String, { description: 'The entity (team or user) owning the project' }) entity: string,
    @Arg('project', () => String, { description: 'The project name' }) project: string,
    @Arg('calls', () => [CompletedCallInput.argType()], { description: 'The completed calls' }) calls: unknown[],
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    const batch = calls.map((call) => CompletedCallInput.toWire(call));
    try {
      await this.services.calls.completeBatch(writer, projectId, validateOrThrow(CompletedCallsBody, { batch }, 'body'));
    } catch (error) {
      throw relocateIssues(error, (loc) =>
        loc[1] === 'batch' && typeof loc[2] === 'number' ? CompletedCallInput.locate(loc, { arg: ['calls', loc[2]], wire: ['body', 'batch', loc[2]] }) : loc,
      );
    }
    return true;
  }

  @Mutation(() => CallStartResult, {
    description: 'Records the start of a call in the project named by entity and project. Also at POST /traces/v2/{entity}/{project}/call/start.',
  })
  async startProjectCall(
    @Arg('entity', () => String, { description: 'The entity (team or user) owning the project' }) entity: string,
    @Arg('project', () => String, { description: 'The project name' }) project: string,
    @Arg('input', () => ProjectCallStartInput.argType(), { description: 'The call as it starts' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<CallStartResult> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    const { id, trace_id } = await ProjectCallStartInput.handle(input, AT_START, (start) =>
      this.services.calls.start(writer, { start: { ...start, project_id: projectId } }),
    );
    return { id, traceId: trace_id };
  }

  @Mutation(() => Boolean, {
    description: 'Records the end of a call in the project named by entity and project. Also at POST /traces/v2/{entity}/{project}/call/end.',
  })
  async endProjectCall(
    @Arg('entity', () => String, { description: 'The entity (team or user) owning the project' }) entity: string,
    @Arg('project', () => String, { description: 'The project name' }) project: string,
    @Arg('input', () => ProjectCallEndInput.argType(), { description: 'The end of the call' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    await ProjectCallEndInput.handle(input, AT_END, (end) => this.services.calls.end(writer, { end: { ...end, project_id: projectId } }));
    return true;
  }

  @Mutation(() => Boolean, { description: "Renames a call (its display name). Also at POST /traces/call/update." })
  async updateCall(
    @Arg('input', () => CallUpdateInput.argType(), { description: 'The call and its new name' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    await CallUpdateInput.handle(input, { arg: 'input', wire: ['body'] }, async (wire) => {
      const request = validateOrThrow(CallUpdateBody, wire, 'body');
      await this.services.calls.updateDisplayName(writerOf(context), request.project_id, request.call_id, request.display_name);
    });
    return true;
  }

  // Links. A Call is only ever reached through a Project field, which has checked membership already.
  @FieldResolver(() => Call, { nullable: true, description: 'The call this one was made from; null for a trace root (or a parent not stored)' })
  async parent(@Root() call: Call): Promise<Call | null> {
    if (!call.parentId) return null;
    const row = await this.services.calls.read(call.projectId, call.parentId);
    return row ? toCall(row) : null;
  }

  @FieldResolver(() => CallConnection, { description: 'The calls made from this one, earliest start first' })
  async children(
    @Root() call: Call,
    @Arg('first', () => Int, { nullable: true, description: CHILD_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: CHILD_PAGING.after }) after: string | null,
  ): Promise<CallConnection> {
    const size = pageSize(first, CHILD_PAGES);
    const offset = offsetAfter(after);
    const rows = await this.services.calls.query(call.projectId, { parentIds: [call.id] }, [{ field: 'started_at', direction: 'asc' }], size + 1, offset);
    return toOffsetConnection(rows, size, offset, { after, toNode: toCall });
  }

  /**
   * A plain list, not a connection: a call's feedback is small by nature (one record per reaction, note, annotation
   * or score), Weave's include_feedback wants all of it, and a page of calls loads it in one batched query per
   * project, which per-call paging would turn into one query per call.
   */
  @FieldResolver(() => [Feedback], { description: 'Feedback on this call (all of it), oldest first' })
  async feedback(@Root() call: Call, @Ctx() context: GraphQLContext): Promise<Feedback[]> {
    const rows = await this.feedbackLoader(context).load({ projectId: call.projectId, ref: callRef(call.projectId, call.id) });
    return rows.map(toFeedback);
  }

  // What the traces list shows of each call (short text, feedback in brief, who ran it).
  @FieldResolver(() => String, { nullable: true, description: `The inputs as one line of text, at most ${PREVIEW_LENGTH} characters (chat: the last message); null when empty` })
  inputPreview(@Root() call: Call): string | null {
    return previewOf(call.inputs);
  }

  @FieldResolver(() => String, { nullable: true, description: `The output as one line of text, at most ${PREVIEW_LENGTH} characters (chat: the answer); null while there is none` })
  outputPreview(@Root() call: Call): string | null {
    return previewOf(call.output);
  }

  @FieldResolver(() => CallFeedbackSummary, { description: 'Feedback on the call in brief: reactions by emoji, notes, the latest score of each scorer' })
  feedbackSummary(@Root() call: Call, @Ctx() context: GraphQLContext): Promise<CallFeedbackSummary> {
    return feedbackSummaryLoader(this.services.db, context).load({ projectId: call.projectId, id: call.id });
  }

  @FieldResolver(() => CallUser, { nullable: true, description: 'The platform user the call ran for (wbUserId), when it names one; null for ids of other systems' })
  user(@Root() call: Call): CallUser | null {
    // Platform user ids are UUIDs; an SDK may record any string, which identity could not look up.
    return call.wbUserId && UUID.test(call.wbUserId) ? Object.assign(new CallUser(), { id: call.wbUserId }) : null;
  }

  private feedbackLoader(context: GraphQLContext): DataLoader<CallFeedbackKey, FeedbackRow[], string> {
    let loader = feedbackLoaders.get(context);
    if (!loader) {
      loader = new DataLoader<CallFeedbackKey, FeedbackRow[], string>(
        async (keys) => {
          const byRef = new Map<string, FeedbackRow[]>();
          for (const projectId of new Set(keys.map((key) => key.projectId))) {
            const refs = keys.filter((key) => key.projectId === projectId).map((key) => key.ref);
            const rows = await this.services.feedback.query(projectId, { weaveRefs: refs, limit: MAX_FEEDBACK_PER_BATCH, offset: 0, descending: false });
            for (const row of rows) byRef.set(row.weave_ref, [...(byRef.get(row.weave_ref) ?? []), row]);
          }
          return keys.map((key) => byRef.get(key.ref) ?? []);
        },
        { cacheKeyFn: (key) => key.ref },
      );
      feedbackLoaders.set(context, loader);
    }
    return loader;
  }
}
