import { INT4_MAX } from '../../../platform/validation.js';
import { Type, type Static } from '@sinclair/typebox';
import { sortBySchema } from '../query/query.schemas.js';
import { FreeObject, OptionalNullable, ProjectId } from '../schema-helpers.js';

export const ObjCreateSchema = Type.Object(
  {
    project_id: ProjectId,
    object_id: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_.\\-]+$',
      description: 'The object name (letters, digits, `_`, `.`, `-`); each distinct value is a new version of it',
    }),
    val: Type.Unknown({ description: 'The value (any JSON; ops are `CustomWeaveType` values whose files were stored first)' }),
    builtin_object_class: OptionalNullable(Type.String({ description: 'Its class, when the client names it (otherwise read from `_class_name`/`_bases`)' })),
    wb_user_id: OptionalNullable(Type.String({ description: 'The user who published it (default: the caller)' })),
  },
  { additionalProperties: true, graphqlName: 'TraceObjectCreateInput', description: 'A version of a named object to store (content-addressed)' },
);
export const ObjCreateBody = Type.Object({ obj: ObjCreateSchema }, { additionalProperties: false });
export type ObjCreateBody = Static<typeof ObjCreateBody>;

export const ObjReadBody = Type.Object(
  { project_id: ProjectId, object_id: Type.String({ minLength: 1 }), digest: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);
export type ObjReadBody = Static<typeof ObjReadBody>;

export const ObjectFilterSchema = Type.Object(
  {
    object_ids: OptionalNullable(Type.Array(Type.String(), { description: 'Only these objects (by name)' })),
    latest_only: OptionalNullable(Type.Boolean({ description: 'Only the latest version of each object' })),
    base_object_classes: OptionalNullable(Type.Array(Type.String(), { description: 'Only objects of one of these classes' })),
    is_op: OptionalNullable(Type.Boolean({ description: 'Only ops (true) or only other objects (false)' })),
  },
  {
    additionalProperties: true,
    graphqlName: 'TraceObjectFilter',
    description: 'Which object versions to read: every given field must hold; an absent field does not filter',
  },
);

export const ObjectSortBySchema = sortBySchema(
  'ObjectSortInput',
  'One sort key of a list of object versions (before the name and version order)',
  'object_id | created_at',
);

export const ObjQueryBody = Type.Object(
  {
    project_id: ProjectId,
    filter: OptionalNullable(ObjectFilterSchema),
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    sort_by: OptionalNullable(ObjectSortBySchema),
    metadata_only: OptionalNullable(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type ObjQueryBody = Static<typeof ObjQueryBody>;

export const TableCreateSchema = Type.Object(
  {
    project_id: ProjectId,
    rows: Type.Array(FreeObject(), { description: 'The rows, in order: each a JSON object (a dataset example, an evaluation result, …)' }),
  },
  { additionalProperties: true, graphqlName: 'TraceTableCreateInput', description: 'A table to store: its rows are content-addressed, in order' },
);
export const TableCreateBody = Type.Object({ table: TableCreateSchema }, { additionalProperties: false });
export type TableCreateBody = Static<typeof TableCreateBody>;

export const TableRowFilterSchema = Type.Object(
  { row_digests: OptionalNullable(Type.Array(Type.String(), { description: 'Only the rows with these digests' })) },
  { additionalProperties: true, graphqlName: 'TraceTableRowFilter', description: 'Which rows of a table to read' },
);

export const TableQueryBody = Type.Object(
  {
    project_id: ProjectId,
    digest: Type.String({ minLength: 1 }),
    filter: OptionalNullable(TableRowFilterSchema),
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
  },
  { additionalProperties: true },
);
export type TableQueryBody = Static<typeof TableQueryBody>;

/**
 * A file to store, as the GraphQL mutation takes it: GraphQL has no bytes, so the content is base64 (the REST
 * route, multipart, sends the bytes of its `file` part this way).
 */
export const FileCreateSchema = Type.Object(
  {
    project_id: ProjectId,
    content_base64: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'The file bytes, base64 (standard alphabet, padding optional)' }),
  },
  { additionalProperties: false, graphqlName: 'TraceFileCreateInput', description: 'A file to store (content-addressed)' },
);
export type FileCreate = Static<typeof FileCreateSchema>;

export const FileContentBody = Type.Object({ project_id: ProjectId, digest: Type.String({ minLength: 1 }) }, { additionalProperties: true });
export type FileContentBody = Static<typeof FileContentBody>;
