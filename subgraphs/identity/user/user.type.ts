import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { ENTITY_DESCRIPTIONS } from '../../../platform/graphql/entity-refs.js';
import { TEAM_ROLES, type TeamRole } from '../../../platform/auth/principal.js';

export const TeamRoleEnum = Object.fromEntries(TEAM_ROLES.map((role) => [role, role])) as { [K in TeamRole]: K };
registerEnumType(TeamRoleEnum, { name: 'TeamRole', description: 'Role of a user in a team (entity)' });

@ObjectType('User', { description: 'A person (or service account) that holds API keys' })
@Directive('@key(fields: "id")')
export class User {
  @Field(() => ID, { description: ENTITY_DESCRIPTIONS.userId }) id!: string;
  @Field(() => String, { description: 'Login name, also the name of the personal entity' }) username!: string;
  @Field(() => String, { nullable: true, description: 'Contact address, when known' }) email!: string | null;
  @Field(() => Boolean, { description: 'Platform operator' }) isAdmin!: boolean;
  /** The default entity's name; the `defaultEntity` field resolves it to the entity (user.resolver.ts). */
  defaultEntityName!: string | null;
  @Field(() => Date, { description: 'When the user was created' }) createdAt!: Date;
}
