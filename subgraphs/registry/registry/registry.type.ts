import { Field, InputType, ObjectType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import type { RegistryRow } from '../store.js';

@ObjectType('Registry', { description: 'A team-owned place where curated artifact versions are linked' })
export class Registry {
  @Field(() => String, { description: 'Team owning it' }) entity!: string;
  @Field(() => String, { description: 'Name, unique in the team' }) name!: string;
  @Field(() => String, { nullable: true, description: 'What it curates' }) description!: string | null;
  @Field(() => String, { description: 'Username of its creator' }) createdBy!: string;
  @Field(() => Date, { description: 'When it was created' }) createdAt!: Date;
}

export const RegistryConnection = connectionTypes(Registry, 'Registry', 'registry');

export function toRegistry(row: RegistryRow): Registry {
  return Object.assign(new Registry(), {
    entity: row.entity,
    name: row.name,
    description: row.description,
    createdBy: row.created_by,
    createdAt: row.created_at,
  });
}

@InputType('CreateRegistryInput', { description: 'A registry to create in a team' })
export class CreateRegistryInput {
  @Field(() => String, { description: 'Team owning it' }) entity!: string;
  @Field(() => String, { description: 'Name, unique in the team' }) name!: string;
  @Field(() => String, { nullable: true, description: 'What it curates' }) description?: string | null;
}
