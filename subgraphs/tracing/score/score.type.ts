import { Field, ObjectType } from 'type-graphql';
import { connectionTypes, type Connection } from '../../../platform/graphql/connection.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { ScoreRecord } from './score.service.js';

@ObjectType({ description: "A scorer's output for a prediction" })
export class Score {
  @Field(() => String, { description: 'The score id (the id of its `<Scorer>.score` call)' }) id!: string;
  @Field(() => String, { description: 'The prediction scored' }) predictionId!: string;
  @Field(() => String, { description: 'Scorer object ref' }) scorer!: string;
  @Field(() => JSONScalar, { nullable: true, description: "The scorer's output (any JSON value)" }) value!: unknown;
  @Field(() => String, { nullable: true, description: 'The evaluation run it belongs to, if any' }) evaluationRunId!: string | null;
  @Field(() => Date, { description: 'When it was recorded' }) createdAt!: Date;
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

/** A page of a project's scores (Relay connection). */
export const ScoreConnection = connectionTypes(Score, 'Score', 'score');
export type ScoreConnection = Connection<Score>;
