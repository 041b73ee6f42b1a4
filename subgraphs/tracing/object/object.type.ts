import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { ObjectRow } from './object.store.js';

@ObjectType({ description: 'A version of a named object (ops, scorers, datasets…), addressed by content digest' })
export class TraceObject {
  @Field(() => String) projectId!: string;
  @Field(() => String) objectId!: string;
  @Field(() => String) digest!: string;
  @Field(() => Int) versionIndex!: number;
  @Field(() => Boolean) isLatest!: boolean;
  @Field(() => String, { description: 'op | object' }) kind!: string;
  @Field(() => String, { nullable: true }) baseObjectClass!: string | null;
  @Field(() => JSONScalar, { nullable: true }) val!: unknown;
  @Field(() => String, { nullable: true }) wbUserId!: string | null;
  @Field(() => Date) createdAt!: Date;
}

export function toTraceObject(row: ObjectRow): TraceObject {
  return Object.assign(new TraceObject(), {
    projectId: row.project_id,
    objectId: row.object_id,
    digest: row.digest,
    versionIndex: row.version_index,
    isLatest: row.is_latest,
    kind: row.kind,
    baseObjectClass: row.base_object_class,
    val: row.val,
    wbUserId: row.wb_user_id,
    createdAt: row.created_at,
  });
}

@ObjectType()
export class ObjectCreateResult {
  @Field(() => String) digest!: string;
  @Field(() => String) objectId!: string;
}

@ObjectType()
export class TableCreateResult {
  @Field(() => String) digest!: string;
  @Field(() => [String]) rowDigests!: string[];
}

@ObjectType()
export class TraceTableRow {
  @Field(() => String) digest!: string;
  @Field(() => JSONScalar, { nullable: true }) val!: unknown;
  @Field(() => Int) originalIndex!: number;
}

@InputType({ description: 'One sort key of Project.traceObjects (the sort_by of POST /objs/query)' })
export class ObjectSortInput {
  @Field(() => String, { description: 'object_id | created_at' }) field!: string;
  @Field(() => String, { description: 'asc | desc' }) direction!: string;
}
