import { Type, type Static } from '@sinclair/typebox';
import { FreeObject, OptionalNullable } from '../schema-helpers.js';

/** ScoreCreateBody of the spec; the project comes from the path. */
export const ScoreCreateBody = Type.Object(
  {
    prediction_id: Type.String({ minLength: 1 }),
    scorer: Type.String({ minLength: 1 }),
    value: Type.Unknown(),
    evaluation_run_id: OptionalNullable(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type ScoreCreateBody = Static<typeof ScoreCreateBody>;

export const PredictionCreateBody = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    inputs: FreeObject(),
    output: Type.Unknown(),
    evaluation_run_id: OptionalNullable(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type PredictionCreateBody = Static<typeof PredictionCreateBody>;

export const EvaluationRunCreateBody = Type.Object(
  { evaluation: Type.String({ minLength: 1 }), model: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export type EvaluationRunCreateBody = Static<typeof EvaluationRunCreateBody>;

export const EvaluationRunFinishBody = Type.Object({ summary: OptionalNullable(FreeObject()) }, { additionalProperties: false });
export type EvaluationRunFinishBody = Static<typeof EvaluationRunFinishBody>;
