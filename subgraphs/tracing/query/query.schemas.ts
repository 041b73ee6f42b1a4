import { Type, type Static } from '@sinclair/typebox';
import { OptionalNullable, StringEnum } from '../schema-helpers.js';

/**
 * The `query` of the read routes as the REST schema declares it (for Fastify and /openapi.json): an object with one
 * `$expr`. The expression itself is checked by parseQuery (query-expression.ts), which GraphQL callers reach too
 * (through the typed QueryInput, query.inputs.ts) and which reports each problem at its place
 * (`["body","query","$expr","$and",0,"$eq"]`).
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

/** One direction for every sort key of the family (GraphQL `SortDirection`). */
const SortDirectionSchema = {
  ...StringEnum(['asc', 'desc'] as const),
  graphqlName: 'SortDirection',
  description: 'The direction of a sort key',
  graphqlValues: { asc: 'Smallest (or earliest) first', desc: 'Largest (or latest) first' },
};

/**
 * The `sort_by` list of a read: each list has its own GraphQL input type (`graphqlName`), since what `field` may
 * name differs (`fieldDescription`); the direction is one shared enum.
 */
export function sortBySchema(graphqlName: string, description: string, fieldDescription: string) {
  return Type.Array(
    Type.Object({ field: Type.String({ description: fieldDescription }), direction: SortDirectionSchema }, { graphqlName, description }),
  );
}
export type SortBy = Static<ReturnType<typeof sortBySchema>>;

export const OptionalQuery = OptionalNullable(QuerySchema);
