import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { JSONObjectScalar, JSONScalar } from '../../../platform/graphql/scalars.js';
import type { CheckpointRow, ModelRow } from '../store.js';

@ObjectType('TrainingModel', { description: 'A trainable model: a line of LoRA checkpoints trained on a base model' })
export class TrainingModel {
  @Field(() => ID, { description: 'The model id (model_id in the REST API)' }) id!: string;
  @Field(() => String, { description: 'The team that owns the model' }) entity!: string;
  @Field(() => String, { description: 'The project the model belongs to' }) project!: string;
  @Field(() => String, { description: 'The model name, unique in the project' }) name!: string;
  @Field(() => String, { description: 'The base model the adapters are trained on' }) baseModel!: string;
  @Field(() => String, { description: "The run that the model's training jobs log their metrics into" }) runId!: string;
  @Field(() => Date, { description: 'When the model was created' }) createdAt!: Date;
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

@ObjectType('TrainingCheckpoint', { description: "The LoRA adapter saved after one training step, with that step's metrics" })
export class TrainingCheckpoint {
  @Field(() => ID, { description: 'The checkpoint id' }) id!: string;
  @Field(() => Int, { description: 'The training step the adapter reached' }) step!: number;
  @Field(() => [String], {
    description:
      'The names the checkpoint answers to after the model name (`step<N>`, `latest` for the newest, and the named aliases it was promoted to, e.g. `production`): `wandb-artifact:///{entity}/{project}/{model}:<alias>` in chat completions',
  })
  aliases!: string[];
  @Field(() => JSONObjectScalar, { description: 'The metrics of the step that produced the checkpoint, by name (loss, grad_norm, reward, …)' })
  metrics!: Record<string, number>;
  @Field(() => Date, { description: 'When the checkpoint was saved' }) createdAt!: Date;
}

/** `latestStep`: the model's highest step, which `latest` names; `named`: the aliases promoted to this checkpoint. */
export function toTrainingCheckpoint(row: CheckpointRow, latestStep: number | null, named: readonly string[] = []): TrainingCheckpoint {
  return Object.assign(new TrainingCheckpoint(), {
    id: row.id,
    step: row.step,
    aliases: [`step${row.step}`, ...(row.step === latestStep ? ['latest'] : []), ...named],
    metrics: row.metrics,
    createdAt: row.created_at,
  });
}

export enum TrainingCheckpointOrder {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(TrainingCheckpointOrder, {
  name: 'TrainingCheckpointOrder',
  description: 'The order of checkpoints by step',
  valuesConfig: { ASC: { description: 'Lowest step first' }, DESC: { description: 'Highest step first (the newest)' } },
});

@ObjectType('TrainingModelDeletion', { description: 'What deleting a model removed' })
export class TrainingModelDeletion {
  @Field(() => ID, { description: 'The deleted model' }) modelId!: string;
  @Field(() => Int, { description: 'How many checkpoints went with it' }) deletedCheckpoints!: number;
  @Field(() => Boolean, { description: "Whether the model's run was deleted too" }) deletedRun!: boolean;
}

@ObjectType('TrainingCheckpointDeletion', { description: 'What deleting checkpoints by step did' })
export class TrainingCheckpointDeletion {
  @Field(() => Int, { description: 'How many checkpoints were deleted' }) deletedCount!: number;
  @Field(() => [Int], { description: 'Requested steps that did not exist' }) notFoundSteps!: number[];
}

@ObjectType('TrajectoryLog', { description: 'Trajectory groups logged for one split (ART logs `train` and `val`)' })
export class TrajectoryLog {
  @Field(() => ID, { description: 'The log entry id' }) id!: string;
  @Field(() => String, { description: 'The split the groups belong to' }) split!: string;
  @Field(() => JSONScalar, { description: 'The trajectory groups as they were logged (rollouts with their messages, choices and rewards)' })
  trajectoryGroups!: unknown[];
  @Field(() => Date, { description: 'When the groups were logged' }) createdAt!: Date;
}

export const TrainingModelConnection = connectionTypes(TrainingModel, 'TrainingModel', 'trainable model');
export const TrainingCheckpointConnection = connectionTypes(TrainingCheckpoint, 'TrainingCheckpoint', 'checkpoint');
export const TrajectoryLogConnection = connectionTypes(TrajectoryLog, 'TrajectoryLog', 'trajectory log');
