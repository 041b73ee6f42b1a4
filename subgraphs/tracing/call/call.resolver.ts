import DataLoader from 'dataloader';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { FeedbackRow } from '../feedback/feedback.store.js';
import { Feedback, toFeedback } from '../feedback/feedback.type.js';
import { callRef } from '../refs.js';
import type { TracingServices } from '../services.js';
import { projectWriterOf, writerOf } from '../writer.js';
import { CallBatchBody, CallUpdateBody, CompletedCallsBody, V2CallEndBody, V2CallStartBody } from './call.schemas.js';
import { Call, CallStartResult, CallUpsertResult, toCall } from './call.type.js';

interface CallFeedbackKey {
  projectId: string;
  ref: string;
}
const feedbackLoaders = new WeakMap<GraphQLContext, DataLoader<CallFeedbackKey, FeedbackRow[], string>>();
/** Feedback rows read for one batch of calls (a page of calls is at most 10,000). */
const MAX_FEEDBACK_PER_BATCH = 100_000;

/** Call ingestion (the mutations behind the REST routes) and the links of a call. Reads are Project fields. */
@Resolver(() => Call)
export class CallResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => CallStartResult, { description: 'POST /call/start: body {start:{...}}' })
  async startCall(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<CallStartResult> {
    const { id, trace_id } = await this.services.calls.start(writerOf(context), body);
    return { id, traceId: trace_id };
  }

  @Mutation(() => Boolean, { description: 'POST /call/end: body {end:{...}}' })
  async endCall(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<boolean> {
    await this.services.calls.end(writerOf(context), body);
    return true;
  }

  @Mutation(() => [CallUpsertResult], { description: 'POST /call/upsert_batch: body {batch:[{mode, req}]}; all or nothing' })
  async upsertCalls(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<CallUpsertResult[]> {
    const results = await this.services.calls.upsertBatch(writerOf(context), validateOrThrow(CallBatchBody, body, 'body'));
    return results.map((result) => ({ id: result.id ?? null, traceId: result.trace_id ?? null }));
  }

  @Mutation(() => Boolean, { description: 'POST /v2/{entity}/{project}/calls/complete: body {batch:[CompletedCall]}' })
  async completeCalls(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('body', () => JSONObjectScalar) body: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    await this.services.calls.completeBatch(writer, projectId, validateOrThrow(CompletedCallsBody, body, 'body'));
    return true;
  }

  @Mutation(() => CallStartResult, { description: 'POST /v2/{entity}/{project}/call/start (project from the path)' })
  async startProjectCall(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('body', () => JSONObjectScalar) body: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<CallStartResult> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    const { start } = validateOrThrow(V2CallStartBody, body, 'body');
    const { id, trace_id } = await this.services.calls.start(writer, { start: { ...start, project_id: projectId } });
    return { id, traceId: trace_id };
  }

  @Mutation(() => Boolean, { description: 'POST /v2/{entity}/{project}/call/end (project from the path)' })
  async endProjectCall(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('body', () => JSONObjectScalar) body: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    const { end } = validateOrThrow(V2CallEndBody, body, 'body');
    await this.services.calls.end(writer, { end: { ...end, project_id: projectId } });
    return true;
  }

  @Mutation(() => Boolean, { description: 'POST /call/update: sets the display name' })
  async updateCall(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<boolean> {
    const request = validateOrThrow(CallUpdateBody, body, 'body');
    await this.services.calls.updateDisplayName(writerOf(context), request.project_id, request.call_id, request.display_name);
    return true;
  }

  // Links. A Call is only ever reached through a Project field, which has checked membership already.
  @FieldResolver(() => Call, { nullable: true })
  async parent(@Root() call: Call): Promise<Call | null> {
    if (!call.parentId) return null;
    const row = await this.services.calls.read(call.projectId, call.parentId);
    return row ? toCall(row) : null;
  }

  @FieldResolver(() => [Call])
  async children(@Root() call: Call): Promise<Call[]> {
    const rows = await this.services.calls.query(call.projectId, { parentIds: [call.id] }, [{ field: 'started_at', direction: 'asc' }], 10_000, 0);
    return rows.map(toCall);
  }

  /** Batched per request: a page of calls asking for their feedback is one query per project, not one per call. */
  @FieldResolver(() => [Feedback], { description: 'Feedback on this call, oldest first' })
  async feedback(@Root() call: Call, @Ctx() context: GraphQLContext): Promise<Feedback[]> {
    const rows = await this.feedbackLoader(context).load({ projectId: call.projectId, ref: callRef(call.projectId, call.id) });
    return rows.map(toFeedback);
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
