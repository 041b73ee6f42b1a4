import { Field, ObjectType } from 'type-graphql';
import type { SecretRow } from '../store.js';

@ObjectType('TeamSecret', { description: 'A team secret; its value is write-only and never returned' })
export class TeamSecret {
  @Field(() => String, { description: 'Team owning it' }) team!: string;
  @Field(() => String, { description: 'Name, usable as ${NAME} in payload templates' }) name!: string;
  @Field(() => Date, { description: 'When it was stored' }) createdAt!: Date;
  @Field(() => Date, { description: 'When its value was last replaced' }) updatedAt!: Date;
}

export function toSecret(row: SecretRow): TeamSecret {
  return Object.assign(new TeamSecret(), { team: row.team, name: row.name, createdAt: row.created_at, updatedAt: row.updated_at });
}
