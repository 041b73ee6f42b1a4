import { Type, type Static } from '@sinclair/typebox';
import { INT4_MAX } from '../../../platform/validation.js';
import { MonitorScorerSchema } from '../monitor/monitor.schemas.js';
import { OptionalNullable } from '../schema-helpers.js';

/** How many models one evaluation compares: the compare page shows two to four runs side by side. */
export const MIN_EVALUATED_MODELS = 2;
export const MAX_EVALUATED_MODELS = 4;
/** Most rows one evaluation asks each model about (each row is one completion per model, one after the other). */
export const MAX_EVALUATED_ROWS = 1_000;
export const MAX_SCORERS = 8;

/**
 * Which rows of the dataset version are evaluated, deterministically: the last `held_out_fraction` of them
 * (ceil(f × rows), the held-out end of a version whose first rows were used for training), or the rows
 * [start_row, end_row). Neither: every row.
 */
export const EvaluationSplitSchema = Type.Object(
  {
    held_out_fraction: OptionalNullable(
      Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'The last fraction of the rows, in (0, 1]: the last ceil(f × row count) rows' }),
    ),
    start_row: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'The first row evaluated (0 = the first row; default 0)' })),
    end_row: OptionalNullable(Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'The row after the last one evaluated (default: the end of the version)' })),
  },
  {
    additionalProperties: false,
    graphqlName: 'EvaluationSplitInput',
    description: 'Which rows are evaluated: the last fraction of them (held out), or a row range [startRow, endRow); not both',
  },
);
export type EvaluationSplit = Static<typeof EvaluationSplitSchema>;

const EvaluationScorerSchema = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
      description: 'The scorer\'s name: the compare page\'s column, its Weave object name and its feedback type `wandb.runnable.<name>` (letters, digits, _ . -)',
    }),
    scorer: MonitorScorerSchema,
  },
  { additionalProperties: false, graphqlName: 'EvaluationScorerInput', description: 'A named scorer, defined as a monitor\'s scorer is' },
);
export type EvaluationScorer = Static<typeof EvaluationScorerSchema>;

export const DatasetEvaluationSchema = Type.Object(
  {
    dataset: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'The Weave Dataset version: `name` (its latest version), `name:v<N>`, `name:<digest>`, or its ref `weave:///{entity}/{project}/object/{name}:{digest}`',
    }),
    split: OptionalNullable(EvaluationSplitSchema),
    models: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      minItems: MIN_EVALUATED_MODELS,
      maxItems: MAX_EVALUATED_MODELS,
      description:
        `The models compared, ${MIN_EVALUATED_MODELS} to ${MAX_EVALUATED_MODELS}, the baseline first: catalog model ids (\`trellis-tiny\`), promoted checkpoints \`{entity}/{project}/{model}:{alias}\` ` +
        '(answered through inference), or training checkpoints `wandb-artifact:///{entity}/{project}/{model}:step<N>` or `:latest` (answered through training chat)',
    }),
    scorers: Type.Array(EvaluationScorerSchema, { minItems: 1, maxItems: MAX_SCORERS, description: `The scorers every answer is scored with (1 to ${MAX_SCORERS}), defined as monitors' scorers` }),
    prompt_column: OptionalNullable(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          'The column that makes the prompt (default `input`): text is one user turn, a list of chat messages is the conversation, an object with `messages` (a traced chat call\'s inputs) its messages',
      }),
    ),
    expected_column: OptionalNullable(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'The column holding the expected answer (default `expected`): `contains`/`equals` scorers without `other_field` compare the answer with `inputs.<this column>`',
      }),
    ),
    system_prompt: OptionalNullable(Type.String({ minLength: 1, maxLength: 20_000, description: 'A system message put before every prompt' })),
    max_tokens: OptionalNullable(Type.Integer({ minimum: 1, maximum: 4096, description: 'Most tokens of each answer (default 64)' })),
    seed: OptionalNullable(Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'The sampling seed of every completion (default 0); temperature is always 0' })),
    name: OptionalNullable(
      Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$', description: 'The Evaluation object\'s name (default `<dataset>-evaluation`)' }),
    ),
  },
  {
    additionalProperties: false,
    graphqlName: 'DatasetEvaluationInput',
    description: 'An evaluation of 2 to 4 models over rows of a Weave Dataset version, scored by built-in checks or LLM judges, run by the platform',
  },
);
export type DatasetEvaluationRequest = Static<typeof DatasetEvaluationSchema>;
