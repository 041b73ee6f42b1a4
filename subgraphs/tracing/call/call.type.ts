import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { connectionTypes, type Connection } from '../../../platform/graphql/connection.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { CallRow } from './call.store.js';
import { callStatusOf, traceNameOf, type CallStatus } from './derived-fields.js';

@ObjectType({ description: 'One traced operation: its start, its end (once ended) and its place in a trace' })
export class Call {
  @Field(() => String) projectId!: string;
  @Field(() => String) id!: string;
  @Field(() => String, { nullable: true }) traceId!: string | null;
  @Field(() => String, { nullable: true }) parentId!: string | null;
  @Field(() => String, { nullable: true, description: 'Op name or op ref URI' }) opName!: string | null;
  @Field(() => String, { nullable: true }) displayName!: string | null;
  @Field(() => String, { nullable: true }) threadId!: string | null;
  @Field(() => String, { nullable: true }) turnId!: string | null;
  @Field(() => Date, { nullable: true }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true }) endedAt!: Date | null;
  @Field(() => Float, { nullable: true, description: 'endedAt - startedAt in milliseconds' }) latencyMs!: number | null;
  @Field(() => String, {
    description: 'success | error | running | descendant_error (Weave\'s summary.weave.status: an exception, no end yet, a descendant that failed)',
  })
  status!: CallStatus;
  @Field(() => String, { nullable: true, description: 'The op name Weave shows the trace under when there is no display name' })
  traceName!: string | null;
  @Field(() => JSONScalar, { nullable: true }) attributes!: unknown;
  @Field(() => JSONScalar, { nullable: true }) inputs!: unknown;
  @Field(() => JSONScalar, { nullable: true }) output!: unknown;
  @Field(() => JSONScalar, { nullable: true }) summary!: unknown;
  @Field(() => String, { nullable: true }) exception!: string | null;
  @Field(() => JSONScalar, { nullable: true }) otelDump!: unknown;
  @Field(() => String, { nullable: true }) wbUserId!: string | null;
  @Field(() => String, { nullable: true }) wbRunId!: string | null;
  @Field(() => Int, { nullable: true }) wbRunStep!: number | null;
  @Field(() => String, { description: 'call | prediction | evaluation_run | score' }) kind!: string;
  @Field(() => Date) createdAt!: Date;
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

@InputType({ description: 'Every list is "any of"; absent or empty lists do not filter' })
export class CallFilter {
  @Field(() => [String], { nullable: true, description: 'Exact op names, or "<op ref without version>:*" for every version' })
  opNames?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Calls whose inputs contain one of these refs (a string value at any depth)' })
  inputRefs?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Calls whose output contains one of these refs (a string value at any depth)' })
  outputRefs?: string[] | null;
  @Field(() => [String], { nullable: true }) parentIds?: string[] | null;
  @Field(() => [String], { nullable: true }) traceIds?: string[] | null;
  @Field(() => [String], { nullable: true }) callIds?: string[] | null;
  @Field(() => [String], { nullable: true }) threadIds?: string[] | null;
  @Field(() => [String], { nullable: true }) turnIds?: string[] | null;
  @Field(() => [String], { nullable: true }) wbUserIds?: string[] | null;
  @Field(() => [String], { nullable: true }) wbRunIds?: string[] | null;
  @Field(() => Boolean, { nullable: true }) traceRootsOnly?: boolean | null;
}

@InputType()
export class CallSortInput {
  @Field(() => String, {
    description: 'A call column, a dotted path into inputs/output/attributes/summary, summary.weave.(status|latency_ms|trace_name) or feedback.[type].payload.<path>',
  })
  field!: string;
  @Field(() => String, { description: 'asc | desc' }) direction!: string;
}

@ObjectType()
export class CallStartResult {
  @Field(() => String) id!: string;
  @Field(() => String) traceId!: string;
}

@ObjectType({ description: 'One item of an upsert batch: id and traceId for starts, both null for ends' })
export class CallUpsertResult {
  @Field(() => String, { nullable: true }) id!: string | null;
  @Field(() => String, { nullable: true }) traceId!: string | null;
}
