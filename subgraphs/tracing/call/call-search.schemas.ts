import { Type, type Static } from '@sinclair/typebox';
import { OptionalQuery } from '../query/query.schemas.js';
import { IsoDateTime, OptionalNullable, ProjectId, StringEnum } from '../schema-helpers.js';
import { CallSortBySchema, CallsFilterSchema } from './call.schemas.js';

/** Longest search text: a few words typed into a search box, not a document. */
export const MAX_SEARCH_TEXT = 500;
/** Most attribute conditions one search may hold. */
export const MAX_ATTRIBUTE_CONDITIONS = 10;

const AttributeCondition = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A dotted path into the call\'s attributes (`env`, `weave.client_version`)',
    }),
    value: Type.String({ maxLength: 1000, description: 'The value it must have, as text (a number or boolean attribute compares as its text)' }),
  },
  { additionalProperties: false, graphqlName: 'CallAttributeCondition', description: 'An attribute that must have a value' },
);

/**
 * What the traces list searches and narrows by, beyond Weave's filter and query: full-text words of the inputs and
 * outputs, a start window, attribute values and feedback. Every given field must hold. Not part of the Weave
 * trace-server API (its calls/query and stream_query keep their own `filter` and `query`); the dashboard and the
 * export route use it.
 */
export const CallSearchSchema = Type.Object(
  {
    text: OptionalNullable(
      Type.String({
        minLength: 1,
        maxLength: MAX_SEARCH_TEXT,
        description:
          'Words that must all occur in the call\'s inputs or output (whole words, any case; "a phrase" in quotes, -word to exclude, or between alternatives)',
      }),
    ),
    started_after: OptionalNullable({ ...IsoDateTime, description: 'Only calls started at or after this time (ISO 8601)' }),
    started_before: OptionalNullable({ ...IsoDateTime, description: 'Only calls started before this time (ISO 8601)' }),
    attributes: OptionalNullable(
      Type.Array(AttributeCondition, { maxItems: MAX_ATTRIBUTE_CONDITIONS, description: 'Attribute values the call must have, all of them' }),
    ),
    reaction: OptionalNullable(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only calls with a reaction of this emoji (`*`: any reaction)' }),
    ),
    scorer: OptionalNullable(
      Type.String({ minLength: 1, maxLength: 200, description: 'Only calls with a score from this scorer (its name; `*`: any scorer)' }),
    ),
  },
  {
    additionalProperties: false,
    graphqlName: 'CallSearch',
    description: 'Full-text words, a start window, attribute values and feedback the calls must have; every given field must hold',
  },
);
export type CallSearch = Static<typeof CallSearchSchema>;

/** Most calls one export writes: pages are read by position, so a deeper export would cost more per page. */
export const MAX_EXPORT_CALLS = 100_000;

/**
 * POST /traces/calls/export: the calls a list shows (Weave's filter and query, the traces list's search, its sort),
 * streamed as JSON lines (the calls/stream_query shape) or CSV.
 */
export const CallsExportBody = Type.Object(
  {
    project_id: ProjectId,
    format: StringEnum(['jsonl', 'csv'] as const),
    filter: OptionalNullable(CallsFilterSchema),
    query: OptionalQuery,
    search: OptionalNullable(CallSearchSchema),
    sort_by: OptionalNullable(CallSortBySchema),
    limit: OptionalNullable(Type.Integer({ minimum: 1, maximum: MAX_EXPORT_CALLS, description: `At most this many calls (default and most: ${MAX_EXPORT_CALLS})` })),
  },
  { additionalProperties: false },
);
export type CallsExportBody = Static<typeof CallsExportBody>;
