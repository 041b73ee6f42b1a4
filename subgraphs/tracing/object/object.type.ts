import { Field, Int, ObjectType } from 'type-graphql';
import { connectionTypes, type Connection } from '../../../platform/graphql/connection.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { ObjectRow } from './object.store.js';

@ObjectType({ description: 'A version of a named object (ops, scorers, datasets…), addressed by content digest' })
export class TraceObject {
  @Field(() => String, { description: 'The project, as `<entity>/<project>`' }) projectId!: string;
  @Field(() => String, { description: 'The object name' }) objectId!: string;
  @Field(() => String, { description: "The digest of this version's value (its address: `weave:///<project>/object/<name>:<digest>`)" })
  digest!: string;
  @Field(() => Int, { description: 'The version number, from 0 in the order versions were stored (`v<N>`)' }) versionIndex!: number;
  @Field(() => Boolean, { description: 'This is the newest version of the object' }) isLatest!: boolean;
  @Field(() => String, { description: 'op | object' }) kind!: string;
  @Field(() => String, { nullable: true, description: 'Its class (the closest base class the client reported), when known' })
  baseObjectClass!: string | null;
  @Field(() => JSONScalar, { nullable: true, description: 'The value, as stored' }) val!: unknown;
  @Field(() => String, { nullable: true, description: 'The user who published this version' }) wbUserId!: string | null;
  @Field(() => Date, { description: 'When this version was stored' }) createdAt!: Date;
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

/** A page of a project's object versions (Relay connection). */
export const TraceObjectConnection = connectionTypes(TraceObject, 'TraceObject', 'object version');
export type TraceObjectConnection = Connection<TraceObject>;

@ObjectType({ description: 'An object version that was stored (or already existed with the same value)' })
export class ObjectCreateResult {
  @Field(() => String, { description: "The digest of the version's value" }) digest!: string;
  @Field(() => String, { description: 'The object name' }) objectId!: string;
}

@ObjectType({ description: 'A table that was stored' })
export class TableCreateResult {
  @Field(() => String, { description: "The table's digest (of its row digests, in order)" }) digest!: string;
  @Field(() => [String], { description: 'The digest of each row, in the order given' }) rowDigests!: string[];
}

@ObjectType({ description: 'One row of a stored table' })
export class TraceTableRow {
  @Field(() => String, { description: "The digest of the row's value" }) digest!: string;
  @Field(() => JSONScalar, { nullable: true, description: 'The row (a JSON object)' }) val!: unknown;
  @Field(() => Int, { description: 'Its position in the table, from 0' }) originalIndex!: number;
}

/** A page of a table's rows (Relay connection). */
export const TraceTableRowConnection = connectionTypes(TraceTableRow, 'TraceTableRow', 'table row');
export type TraceTableRowConnection = Connection<TraceTableRow>;
