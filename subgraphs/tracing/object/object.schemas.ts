import { INT4_MAX } from '../../../platform/validation.js';
import { Type, type Static } from '@sinclair/typebox';
import { OptionalSortBy } from '../query/query.schemas.js';
import { FreeObject, OptionalNullable, ProjectId } from '../schema-helpers.js';

export const ObjCreateBody = Type.Object(
  {
    obj: Type.Object(
      {
        project_id: ProjectId,
        object_id: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.\\-]+$' }),
        val: Type.Unknown(),
        builtin_object_class: OptionalNullable(Type.String()),
        wb_user_id: OptionalNullable(Type.String()),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false },
);
export type ObjCreateBody = Static<typeof ObjCreateBody>;

export const ObjReadBody = Type.Object(
  { project_id: ProjectId, object_id: Type.String({ minLength: 1 }), digest: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);
export type ObjReadBody = Static<typeof ObjReadBody>;

export const ObjQueryBody = Type.Object(
  {
    project_id: ProjectId,
    filter: OptionalNullable(
      Type.Object(
        {
          object_ids: OptionalNullable(Type.Array(Type.String())),
          latest_only: OptionalNullable(Type.Boolean()),
          base_object_classes: OptionalNullable(Type.Array(Type.String())),
          is_op: OptionalNullable(Type.Boolean()),
        },
        { additionalProperties: true },
      ),
    ),
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    sort_by: OptionalSortBy,
    metadata_only: OptionalNullable(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type ObjQueryBody = Static<typeof ObjQueryBody>;

export const TableCreateBody = Type.Object(
  { table: Type.Object({ project_id: ProjectId, rows: Type.Array(FreeObject()) }, { additionalProperties: true }) },
  { additionalProperties: false },
);
export type TableCreateBody = Static<typeof TableCreateBody>;

export const TableQueryBody = Type.Object(
  {
    project_id: ProjectId,
    digest: Type.String({ minLength: 1 }),
    filter: OptionalNullable(Type.Object({ row_digests: OptionalNullable(Type.Array(Type.String())) }, { additionalProperties: true })),
    limit: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
    offset: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX })),
  },
  { additionalProperties: true },
);
export type TableQueryBody = Static<typeof TableQueryBody>;

export const FileContentBody = Type.Object({ project_id: ProjectId, digest: Type.String({ minLength: 1 }) }, { additionalProperties: true });
export type FileContentBody = Static<typeof FileContentBody>;
