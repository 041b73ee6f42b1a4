import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { RUN_STATES, type RunState } from '../db/database.js';
import type { RunRow } from '../store.js';

export const RunStateEnum = Object.fromEntries(RUN_STATES.map((state) => [state, state])) as { [S in RunState]: S };
registerEnumType(RunStateEnum, { name: 'RunState', description: 'Where a run stands' });

@ObjectType('Run', { description: 'One experiment run of a project (training runs included), with its metrics' })
export class Run {
  @Field(() => ID, { description: 'Id of the run' }) id!: string;
  @Field(() => String, { description: 'Team of the project' }) entity!: string;
  @Field(() => String, { description: 'The project' }) project!: string;
  @Field(() => String, { description: 'Display name' }) name!: string;
  @Field(() => String, { description: 'Username of who started it' }) author!: string;
  @Field(() => RunStateEnum, { description: 'Where it stands' }) state!: RunState;
  @Field(() => Date, { description: 'When it started' }) createdAt!: Date;
  @Field(() => Date, { description: 'When it last changed' }) updatedAt!: Date;
}

export const RunConnection = connectionTypes(Run, 'Run', 'run');

export function toRun(row: RunRow): Run {
  return Object.assign(new Run(), {
    id: row.id,
    entity: row.entity,
    project: row.project,
    name: row.name,
    author: row.author,
    state: row.state,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

@ObjectType('MetricPoint', { description: 'One logged value of a run metric' })
export class MetricPoint {
  @Field(() => Int, { description: 'The step it was logged at' }) step!: number;
  @Field(() => Float, { description: 'The value' }) value!: number;
  @Field(() => Date, { description: 'When it was logged' }) loggedAt!: Date;
}

@InputType('CreateRunInput', { description: 'A run to start' })
export class CreateRunInput {
  @Field(() => String, { description: 'Team of the project' }) entity!: string;
  @Field(() => String, { description: 'The project' }) project!: string;
  @Field(() => String, { nullable: true, description: 'Display name (generated when absent)' }) name?: string | null;
}

@InputType('MetricInput', { description: 'One metric value to log' })
export class MetricInput {
  @Field(() => String, { description: 'Metric name' }) name!: string;
  @Field(() => Float, { description: 'The value' }) value!: number;
  @Field(() => Int, { nullable: true, description: 'Default: the next step of this metric' }) step?: number | null;
}
