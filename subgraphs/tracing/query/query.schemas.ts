import { Type } from '@sinclair/typebox';
import { OptionalNullable, StringEnum } from '../schema-helpers.js';

/**
 * The `query` of the read routes as the REST schema declares it (for Fastify and /openapi.json): an object with one
 * `$expr`. The expression itself is checked by parseQuery (query-expression.ts), which GraphQL callers reach too
 * and which reports each problem at its place (`["body","query","$expr","$and",0,"$eq"]`).
 */
export const QuerySchema = Type.Object(
  {
    $expr: Type.Unknown({
      description:
        'Weave query expression: $and, $or, $not, $eq, $gt, $gte, $in, $contains {input, substr, case_insensitive} over ' +
        '$getField (dotted path), $literal and $convert {input, to: double|int|bool|string|exists}',
    }),
  },
  { additionalProperties: false },
);

export const SortBySchema = Type.Array(Type.Object({ field: Type.String(), direction: StringEnum(['asc', 'desc'] as const) }));

export const OptionalQuery = OptionalNullable(QuerySchema);
export const OptionalSortBy = OptionalNullable(SortBySchema);
