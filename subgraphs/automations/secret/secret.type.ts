import { Field, ObjectType } from 'type-graphql';
import type { SecretRow } from '../store.js';

@ObjectType('TeamSecret', { description: 'A team secret; its value is write-only and never returned' })
export class TeamSecret {
  @Field(() => String) team!: string;
  @Field(() => String) name!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

export function toSecret(row: SecretRow): TeamSecret {
  return Object.assign(new TeamSecret(), { team: row.team, name: row.name, createdAt: row.created_at, updatedAt: row.updated_at });
}
