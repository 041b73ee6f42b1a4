import { Field, InputType, ObjectType } from 'type-graphql';
import type { RegistryRow } from '../store.js';

@ObjectType('Registry', { description: 'A team-owned place where curated artifact versions are linked' })
export class Registry {
  @Field(() => String) entity!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String) createdBy!: string;
  @Field(() => Date) createdAt!: Date;
}

export function toRegistry(row: RegistryRow): Registry {
  return Object.assign(new Registry(), {
    entity: row.entity,
    name: row.name,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at,
  });
}

@InputType('CreateRegistryInput')
export class CreateRegistryInput {
  @Field(() => String) entity!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
}
