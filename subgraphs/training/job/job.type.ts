import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { JobEventRow, JobRow } from '../store.js';

export enum TrainingJobStatus {
  QUEUED = 'QUEUED',
  RUNNING = 'RUNNING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
}
registerEnumType(TrainingJobStatus, {
  name: 'TrainingJobStatus',
  description: 'Where a training job is in its life',
  valuesConfig: {
    QUEUED: { description: 'Waiting for a trainer' },
    RUNNING: { description: 'Training' },
    SUCCEEDED: { description: 'Finished; its checkpoint is saved' },
    FAILED: { description: 'Stopped by an error (errorMessage says why)' },
    CANCELLED: { description: 'Cancelled before it finished' },
  },
});

export enum TrainingJobKind {
  RL = 'RL',
  SFT = 'SFT',
}
registerEnumType(TrainingJobKind, {
  name: 'TrainingJobKind',
  description: 'What a training job learns from',
  valuesConfig: { RL: { description: 'Reinforcement learning on scored trajectories' }, SFT: { description: 'Supervised fine-tuning on a dataset' } },
});

@ObjectType('TrainingJob', { description: 'A reinforcement-learning or supervised fine-tuning job on a model' })
export class TrainingJob {
  @Field(() => ID, { description: 'The job id' }) id!: string;
  @Field(() => ID, { description: 'The model the job trains' }) modelId!: string;
  @Field(() => TrainingJobKind, { description: 'RL or SFT' }) kind!: TrainingJobKind;
  @Field(() => TrainingJobStatus, { description: 'Where the job is in its life' }) status!: TrainingJobStatus;
  @Field(() => Date, { nullable: true, description: 'When training started; null while queued' }) trainingStart!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When training ended (succeeded, failed or cancelled)' }) trainingEnd!: Date | null;
  @Field(() => String, { nullable: true, description: 'Why the job failed' }) errorMessage!: string | null;
  @Field(() => Date, { description: 'When the job was submitted' }) createdAt!: Date;
  /** Kept for the event field resolver and for `config`. */
  request!: Record<string, unknown>;
}

export function toTrainingJob(row: JobRow): TrainingJob {
  return Object.assign(new TrainingJob(), {
    id: row.id,
    modelId: row.model_id,
    kind: row.kind as TrainingJobKind,
    status: row.status as TrainingJobStatus,
    trainingStart: row.training_start,
    trainingEnd: row.training_end,
    errorMessage: row.error_message,
    createdAt: row.created_at,
    request: row.request,
  });
}

@ObjectType('TrainingJobEvent', { description: "One event of a job's progress (what ART polls)" })
export class TrainingJobEvent {
  @Field(() => ID, { description: 'The event id' }) id!: string;
  @Field(() => String, { description: 'training_started, gradient_step, training_ended or training_failed' }) type!: string;
  @Field(() => JSONObjectScalar, { description: "The event's data: a step's metrics, the step reached, the error message" })
  data!: Record<string, unknown>;
  @Field(() => Date, { description: 'When the event was recorded' }) createdAt!: Date;
}

export function toTrainingJobEvent(row: JobEventRow): TrainingJobEvent {
  return Object.assign(new TrainingJobEvent(), { id: row.id, type: row.type, data: row.data, createdAt: row.created_at });
}

export const TrainingJobConnection = connectionTypes(TrainingJob, 'TrainingJob', 'training job');
export const TrainingJobEventConnection = connectionTypes(TrainingJobEvent, 'TrainingJobEvent', 'job event');
