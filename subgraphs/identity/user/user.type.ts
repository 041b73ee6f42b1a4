import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { TEAM_ROLES, type TeamRole } from '../../../platform/auth/principal.js';

export const TeamRoleEnum = Object.fromEntries(TEAM_ROLES.map((role) => [role, role])) as { [K in TeamRole]: K };
registerEnumType(TeamRoleEnum, { name: 'TeamRole', description: 'Role of a user in a team (entity)' });

@ObjectType('User', { description: 'A person (or service account) that holds API keys' })
@Directive('@key(fields: "id")')
export class User {
  @Field(() => ID) id!: string;
  @Field(() => String) username!: string;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => Boolean, { description: 'Platform operator' }) isAdmin!: boolean;
  @Field(() => String, { nullable: true, description: 'Entity used when a request names none' })
  defaultEntity!: string | null;
  @Field(() => Date) createdAt!: Date;
}
