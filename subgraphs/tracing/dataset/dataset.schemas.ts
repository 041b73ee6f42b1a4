import { Type, type Static } from '@sinclair/typebox';
import { INT4_MAX } from '../../../platform/validation.js';
import { CallSearchSchema } from '../call/call-search.schemas.js';
import { CallsFilterSchema } from '../call/call.schemas.js';
import { FreeObject, OptionalNullable, ProjectId } from '../schema-helpers.js';

/** Most calls one request turns into rows (a dataset of a few thousand examples is what fine-tuning and evaluation take). */
export const MAX_DATASET_CALLS = 10_000;

/** A Weave object name (ObjCreateSchema's rule): each new value is a new version of it. */
const DatasetName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9_.\\-]+$',
  description: 'The Dataset object name (letters, digits, `_`, `.`, `-`)',
});

/**
 * Where a column's value comes from in a call: `inputs` or `output` (whole), a dotted path into them
 * (`inputs.messages`, `output.message.content`), `attributes.<path>`, `feedback.<scorer>` (the latest score that scorer
 * or monitor gave the call: its feedback `wandb.runnable.<scorer>`'s output), or `id` (the call's id).
 */
export const COLUMN_SOURCE_PATTERN = '^(id|inputs|output|(inputs|output|attributes)(\\.[^.]+)+|feedback\\.[^.]+)$';

const DatasetColumn = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, description: 'The column name in each row (e.g. `question`, `expected`)' }),
    source: Type.String({
      pattern: COLUMN_SOURCE_PATTERN,
      description:
        'Where the value comes from: inputs | output | inputs.<path> | output.<path> | attributes.<path> | feedback.<scorer> | id. A path a call lacks gives null',
    }),
  },
  { additionalProperties: false, graphqlName: 'DatasetColumnMapping', description: 'One column of the rows and the call field it is read from' },
);

export const DatasetFromCallsSchema = Type.Object(
  {
    project_id: ProjectId,
    dataset: DatasetName,
    description: OptionalNullable(Type.String({ maxLength: 2000, description: 'What the dataset holds (kept on the new version)' })),
    append: OptionalNullable(
      Type.Boolean({ description: "Add the rows after the latest version's rows (true) or make a version of these rows only (false, the default)" }),
    ),
    call_ids: OptionalNullable(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_DATASET_CALLS, description: 'The calls, by id, in this order' })),
    search: OptionalNullable(CallSearchSchema),
    filter: OptionalNullable({ ...CallsFilterSchema, description: "Weave's calls filter (op names, trace roots only, …), as the traces list sends it" }),
    // Wire form: the typed GraphQL query (TraceQueryInput) is a class of its own that typed inputs cannot embed.
    query: OptionalNullable(
      FreeObject({
        description:
          'Weave\'s query in its wire form, `{"$expr": …}`, as POST /traces/calls/query takes it (the traces list\'s op and status boxes send one)',
      }),
    ),
    limit: OptionalNullable(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DATASET_CALLS,
        description: `With search, filter or query: at most this many calls, oldest first (default and maximum ${MAX_DATASET_CALLS})`,
      }),
    ),
    columns: Type.Array(DatasetColumn, { minItems: 1, maxItems: 50, description: 'The columns of each row, in order' }),
  },
  {
    additionalProperties: false,
    graphqlName: 'DatasetFromCallsInput',
    description:
      "Calls to turn into a new version of a Weave Dataset: by ids, or every call the traces list's search, filter and query select (not both), with a column mapping",
  },
);
export type DatasetFromCalls = Static<typeof DatasetFromCallsSchema>;

export const DatasetRowEditSchema = Type.Object(
  {
    project_id: ProjectId,
    dataset: DatasetName,
    version: OptionalNullable(Type.String({ minLength: 1, description: 'The version to edit: v<N>, a digest, or latest (the default)' })),
    row_index: Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'The row to change (0 = the first)' }),
    values: FreeObject({ description: 'Columns to set on the row (e.g. `{"expected": "Paris"}`); the others keep their values' }),
  },
  { additionalProperties: false, graphqlName: 'DatasetRowEditInput', description: "A change to one row of a Dataset version, saved as the Dataset's next version" },
);
export type DatasetRowEdit = Static<typeof DatasetRowEditSchema>;
