import { Field, ObjectType } from 'type-graphql';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { ScoreRecord } from './score.service.js';

@ObjectType({ description: "A scorer's output for a prediction" })
export class Score {
  @Field(() => String) id!: string;
  @Field(() => String) predictionId!: string;
  @Field(() => String, { description: 'Scorer object ref' }) scorer!: string;
  @Field(() => JSONScalar, { nullable: true }) value!: unknown;
  @Field(() => String, { nullable: true }) evaluationRunId!: string | null;
  @Field(() => Date) createdAt!: Date;
}

export function toScore(record: ScoreRecord): Score {
  return Object.assign(new Score(), {
    id: record.id,
    predictionId: record.prediction_id,
    scorer: record.scorer,
    value: record.value,
    evaluationRunId: record.evaluation_run_id,
    createdAt: record.created_at,
  });
}
