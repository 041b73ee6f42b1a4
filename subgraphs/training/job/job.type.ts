import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { JobEventRow, JobRow } from '../store.js';

export enum TrainingJobStatus {
  QUEUED = 'QUEUED',
  RUNNING = 'RUNNING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
}
registerEnumType(TrainingJobStatus, { name: 'TrainingJobStatus' });

export enum TrainingJobKind {
  RL = 'RL',
  SFT = 'SFT',
}
registerEnumType(TrainingJobKind, { name: 'TrainingJobKind' });

@ObjectType('TrainingJob', { description: 'A reinforcement-learning or supervised fine-tuning job on a model' })
export class TrainingJob {
  @Field(() => ID) id!: string;
  @Field(() => ID) modelId!: string;
  @Field(() => TrainingJobKind) kind!: TrainingJobKind;
  @Field(() => TrainingJobStatus) status!: TrainingJobStatus;
  @Field(() => Date, { nullable: true }) trainingStart!: Date | null;
  @Field(() => Date, { nullable: true }) trainingEnd!: Date | null;
  @Field(() => String, { nullable: true }) errorMessage!: string | null;
  @Field(() => Date) createdAt!: Date;
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

@ObjectType('TrainingJobEvent')
export class TrainingJobEvent {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'training_started, gradient_step, training_ended or training_failed' }) type!: string;
  @Field(() => JSONObjectScalar) data!: Record<string, unknown>;
  @Field(() => Date) createdAt!: Date;
}

export function toTrainingJobEvent(row: JobEventRow): TrainingJobEvent {
  return Object.assign(new TrainingJobEvent(), { id: row.id, type: row.type, data: row.data, createdAt: row.created_at });
}

@ObjectType('TrainingJobEventPage')
export class TrainingJobEventPage {
  @Field(() => [TrainingJobEvent]) data!: TrainingJobEvent[];
  @Field(() => ID, { nullable: true }) firstId!: string | null;
  @Field(() => ID, { nullable: true }) lastId!: string | null;
  @Field(() => Boolean) hasMore!: boolean;
}
