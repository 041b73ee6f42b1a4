import { Field, Float, Int, ObjectType } from 'type-graphql';
import { connectionTypes, type Connection } from '../../../platform/graphql/connection.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { CallRow } from './call.store.js';
import { callStatusOf, traceNameOf, type CallStatus } from './derived-fields.js';

@ObjectType({ description: 'One traced operation: its start, its end (once ended) and its place in a trace' })
export class Call {
  @Field(() => String, { description: 'The project, as `<entity>/<project>`' }) projectId!: string;
  @Field(() => String, { description: 'The call id, unique in its project' }) id!: string;
  @Field(() => String, { nullable: true, description: 'The trace the call belongs to (its root call and every descendant share it)' })
  traceId!: string | null;
  @Field(() => String, { nullable: true, description: 'The call this one was made from; null for a trace root' }) parentId!: string | null;
  @Field(() => String, { nullable: true, description: 'Op name or op ref URI' }) opName!: string | null;
  @Field(() => String, { nullable: true, description: 'A name shown instead of the op name, when one was given' }) displayName!: string | null;
  @Field(() => String, { nullable: true, description: 'The conversation thread the call belongs to' }) threadId!: string | null;
  @Field(() => String, { nullable: true, description: 'The turn of that thread' }) turnId!: string | null;
  @Field(() => Date, { nullable: true, description: 'When the call started; null when only its end has arrived so far' }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When the call ended; null while it runs' }) endedAt!: Date | null;
  @Field(() => Float, { nullable: true, description: 'endedAt - startedAt in milliseconds' }) latencyMs!: number | null;
  @Field(() => String, {
    description: "success | error | running | descendant_error (Weave's summary.weave.status: an exception, no end yet, a descendant that failed)",
  })
  status!: CallStatus;
  @Field(() => String, { nullable: true, description: 'The op name Weave shows the trace under when there is no display name' })
  traceName!: string | null;
  @Field(() => JSONScalar, { nullable: true, description: 'Free-form attributes recorded with the call (environment, versions, …)' }) attributes!: unknown;
  @Field(() => JSONScalar, { nullable: true, description: "The call's inputs by parameter name (values may be refs to objects and tables)" })
  inputs!: unknown;
  @Field(() => JSONScalar, { nullable: true, description: "The call's output (any JSON value); null until it ends" }) output!: unknown;
  @Field(() => JSONScalar, { nullable: true, description: 'The summary recorded at the end (usage, scores), as stored' }) summary!: unknown;
  @Field(() => String, { nullable: true, description: 'The exception the call raised, if it failed' }) exception!: string | null;
  @Field(() => JSONScalar, { nullable: true, description: 'The OpenTelemetry span the call was made from, when it came through OTel' })
  otelDump!: unknown;
  @Field(() => String, { nullable: true, description: 'The user the call ran for' }) wbUserId!: string | null;
  @Field(() => String, { nullable: true, description: 'The run the call belongs to' }) wbRunId!: string | null;
  @Field(() => Int, { nullable: true, description: 'The step of that run' }) wbRunStep!: number | null;
  @Field(() => String, { description: 'call | prediction | evaluation_run | score (the last three recorded by the evaluation API)' }) kind!: string;
  @Field(() => Date, { description: 'When the platform first stored the call' }) createdAt!: Date;
}

export function toCall(row: CallRow): Call {
  return Object.assign(new Call(), {
    projectId: row.project_id,
    id: row.id,
    traceId: row.trace_id,
    parentId: row.parent_id,
    opName: row.op_name,
    displayName: row.display_name,
    threadId: row.thread_id,
    turnId: row.turn_id,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    latencyMs: row.started_at && row.ended_at ? row.ended_at.getTime() - row.started_at.getTime() : null,
    status: callStatusOf(row),
    traceName: traceNameOf(row.op_name, row.display_name),
    attributes: row.attributes,
    inputs: row.inputs,
    output: row.output,
    summary: row.summary,
    exception: row.exception,
    otelDump: row.otel_dump,
    wbUserId: row.wb_user_id,
    wbRunId: row.wb_run_id,
    wbRunStep: row.wb_run_step,
    kind: row.kind,
    createdAt: row.created_at,
  });
}

/** A page of a project's calls (Relay connection). */
export const CallConnection = connectionTypes(Call, 'Call', 'call');
export type CallConnection = Connection<Call>;

@ObjectType({ description: 'A call that has started' })
export class CallStartResult {
  @Field(() => String, { description: 'The call id (the one given, or the one generated)' }) id!: string;
  @Field(() => String, { description: "The call's trace (the one given, its parent's, or a new one)" }) traceId!: string;
}

@ObjectType({ description: 'One item of an upsert batch: id and traceId for starts, both null for ends' })
export class CallUpsertResult {
  @Field(() => String, { nullable: true, description: 'The id of the call that started; null for an end' }) id!: string | null;
  @Field(() => String, { nullable: true, description: "That call's trace; null for an end" }) traceId!: string | null;
}
