import { Field, ID, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar, JSONScalar } from '../../../platform/graphql/scalars.js';
import type { CheckpointRow, ModelRow } from '../store.js';

@ObjectType('TrainingModel', { description: 'A trainable model: a LoRA line of checkpoints on a base model' })
export class TrainingModel {
  @Field(() => ID) id!: string;
  @Field(() => String) entity!: string;
  @Field(() => String) project!: string;
  @Field(() => String) name!: string;
  @Field(() => String) baseModel!: string;
  @Field(() => String, { description: 'The run that the model\'s training jobs log their metrics into' }) runId!: string;
  @Field(() => Date) createdAt!: Date;
}

export function toTrainingModel(row: ModelRow): TrainingModel {
  return Object.assign(new TrainingModel(), {
    id: row.id,
    entity: row.entity,
    project: row.project,
    name: row.name,
    baseModel: row.base_model,
    runId: row.run_id,
    createdAt: row.created_at,
  });
}

@ObjectType('TrainingCheckpoint', { description: 'The LoRA adapter saved after one training step, with that step\'s metrics' })
export class TrainingCheckpoint {
  @Field(() => ID) id!: string;
  @Field(() => Int) step!: number;
  @Field(() => JSONObjectScalar) metrics!: Record<string, number>;
  @Field(() => Date) createdAt!: Date;
}

export function toTrainingCheckpoint(row: CheckpointRow): TrainingCheckpoint {
  return Object.assign(new TrainingCheckpoint(), { id: row.id, step: row.step, metrics: row.metrics, createdAt: row.created_at });
}

@ObjectType('TrainingCheckpointPage')
export class TrainingCheckpointPage {
  @Field(() => [TrainingCheckpoint]) data!: TrainingCheckpoint[];
  @Field(() => ID, { nullable: true }) firstId!: string | null;
  @Field(() => ID, { nullable: true }) lastId!: string | null;
  @Field(() => Boolean) hasMore!: boolean;
}

@ObjectType('TrainingModelDeletion')
export class TrainingModelDeletion {
  @Field(() => ID) modelId!: string;
  @Field(() => Int) deletedCheckpoints!: number;
  @Field(() => Boolean) deletedRun!: boolean;
}

@ObjectType('TrainingCheckpointDeletion')
export class TrainingCheckpointDeletion {
  @Field(() => Int) deletedCount!: number;
  @Field(() => [Int], { description: 'Requested steps that did not exist' }) notFoundSteps!: number[];
}

@ObjectType('TrajectoryLog', { description: 'Trajectory groups logged for one split (ART logs `train` and `val`)' })
export class TrajectoryLog {
  @Field(() => ID) id!: string;
  @Field(() => String) split!: string;
  @Field(() => JSONScalar) trajectoryGroups!: unknown[];
  @Field(() => Date) createdAt!: Date;
}
