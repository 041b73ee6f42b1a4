import { Type, type Static } from '@sinclair/typebox';
import { FreeObject, OptionalNullable, StringEnum } from '../schema-helpers.js';

/** The scorers a monitor can run on a call: the built-in checks and an LLM judge. */
export const SCORER_KINDS = ['regex', 'json_schema', 'length', 'contains', 'equals', 'llm_judge'] as const;
export type ScorerKind = (typeof SCORER_KINDS)[number];

/** A call field as a dotted path: `output`, `output.answer`, `inputs.expected`, `attributes.expected_answer`, `summary.x`, `exception`. */
const FieldPath = (description: string) =>
  Type.String({ minLength: 1, maxLength: 500, pattern: '^(output|inputs|attributes|summary|exception)(\\.[^.]+)*$', description });

export const MonitorFilterSchema = Type.Object(
  {
    op_names: OptionalNullable(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: 100,
        description: 'Only calls of these ops (an op name, or its ref `weave:///…/op/name:*`, matched with or without the version); none: every op',
      }),
    ),
    attributes: OptionalNullable(FreeObject({ description: "Only calls whose attributes have these keys equal to these values (JSON equality)" })),
    roots_only: OptionalNullable(Type.Boolean({ description: 'Only trace roots (calls without a parent); default false: every call' })),
  },
  { additionalProperties: false, graphqlName: 'MonitorFilterInput', description: 'Which calls a monitor looks at' },
);
export type MonitorFilter = Static<typeof MonitorFilterSchema>;

export const MonitorScorerSchema = Type.Object(
  {
    kind: {
      ...StringEnum(SCORER_KINDS),
      graphqlName: 'MonitorScorerKind',
      description: 'The check the monitor runs',
      graphqlValues: {
        regex: '1 when `field` (as text) contains a match of `pattern` (RE2 syntax), else 0',
        json_schema: '1 when `field` is valid against `json_schema` (a JSON string is parsed first), else 0',
        length: '1 when the length of `field` as text is within [min_length, max_length], else 0',
        contains: '1 when `field` as text contains `other_field` as text, else 0',
        equals: '1 when `field` equals `other_field` (JSON equality; text compared trimmed), else 0',
        llm_judge: 'A catalog model answers `prompt` (its `{{output}}`, `{{inputs.x}}` placeholders filled from the call); the first number of its answer, clamped to [score_min, score_max], is the score and the answer the reason',
      },
    },
    field: OptionalNullable(FieldPath('The call field checked (default `output`)')),
    pattern: OptionalNullable(Type.String({ minLength: 1, maxLength: 2000, description: 'regex: the pattern, RE2 syntax (no backreferences or lookaround)' })),
    json_schema: OptionalNullable(FreeObject({ description: 'json_schema: the JSON Schema (draft 7) the field must satisfy' })),
    min_length: OptionalNullable(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'length: the least length, in characters' })),
    max_length: OptionalNullable(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'length: the greatest length, in characters' })),
    prompt: OptionalNullable(
      Type.String({ minLength: 1, maxLength: 20_000, description: 'llm_judge: the prompt template; `{{output}}`, `{{inputs}}`, `{{inputs.question}}`, `{{attributes.x}}` are replaced by those call fields as text' }),
    ),
    model: OptionalNullable(Type.String({ minLength: 1, maxLength: 500, description: 'llm_judge: the catalog model that answers (default `trellis-tiny`, the embedded model)' })),
    max_tokens: OptionalNullable(Type.Integer({ minimum: 1, maximum: 4096, description: 'llm_judge: most tokens of its answer (default 16)' })),
    score_min: OptionalNullable(Type.Number({ description: 'llm_judge: the least score (default 0); lower numbers are clamped to it' })),
    score_max: OptionalNullable(Type.Number({ description: 'llm_judge: the greatest score (default 1); higher numbers are clamped to it' })),
    other_field: OptionalNullable(FieldPath('contains/equals: the call field compared with, e.g. `inputs.expected` or `attributes.expected_answer`')),
  },
  { additionalProperties: false, graphqlName: 'MonitorScorerInput', description: "A monitor's scorer: a built-in check and its settings" },
);
export type MonitorScorer = Static<typeof MonitorScorerSchema>;

export const MonitorThresholdSchema = Type.Object(
  {
    below: Type.Number({ description: 'Publish a MONITOR_SCORE_DROP event when the mean score over the window falls below this' }),
    window_minutes: Type.Integer({ minimum: 1, maximum: 10_080, description: 'The window: scores recorded in the last this many minutes (1 to 10,080)' }),
    min_samples: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Fewest scored calls in the window for the mean to count' }),
  },
  { additionalProperties: false, graphqlName: 'MonitorThresholdInput', description: 'When a monitor announces a quality drop (an automation event)' },
);
export type MonitorThreshold = Static<typeof MonitorThresholdSchema>;

export const MonitorBody = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
      description: "The monitor's name, unique in its project: its scores are feedback of type `wandb.runnable.<name>` (letters, digits, _ . -)",
    }),
    filter: OptionalNullable(MonitorFilterSchema),
    sampling_rate: Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'The share of matching calls scored, in (0, 1]; the decision is fixed per monitor and call' }),
    scorer: MonitorScorerSchema,
    active: OptionalNullable(Type.Boolean({ description: 'Whether it scores new calls (default true)' })),
    threshold: OptionalNullable(MonitorThresholdSchema),
  },
  { additionalProperties: false, graphqlName: 'MonitorInput', description: 'A monitor: which calls, how many of them, and how they are scored' },
);
export type MonitorBody = Static<typeof MonitorBody>;
