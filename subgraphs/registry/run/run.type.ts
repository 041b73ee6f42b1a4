import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { RUN_STATES, type RunState } from '../db/database.js';
import type { RunRow } from '../store.js';

export const RunStateEnum = Object.fromEntries(RUN_STATES.map((state) => [state, state])) as { [S in RunState]: S };
registerEnumType(RunStateEnum, { name: 'RunState' });

@ObjectType('Run')
export class Run {
  @Field(() => ID) id!: string;
  @Field(() => String) entity!: string;
  @Field(() => String) project!: string;
  @Field(() => String) name!: string;
  @Field(() => String) author!: string;
  @Field(() => RunStateEnum) state!: RunState;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

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

@ObjectType('MetricPoint')
export class MetricPoint {
  @Field(() => Int) step!: number;
  @Field(() => Float) value!: number;
  @Field(() => Date) loggedAt!: Date;
}

@InputType('CreateRunInput')
export class CreateRunInput {
  @Field(() => String) entity!: string;
  @Field(() => String) project!: string;
  @Field(() => String, { nullable: true, description: 'Display name (generated when absent)' }) name?: string | null;
}

@InputType('MetricInput')
export class MetricInput {
  @Field(() => String) name!: string;
  @Field(() => Float) value!: number;
  @Field(() => Int, { nullable: true, description: 'Default: the next step of this metric' }) step?: number | null;
}
