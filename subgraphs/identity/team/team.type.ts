import { Directive, Field, ObjectType } from 'type-graphql';
import { ENTITY_DESCRIPTIONS } from '../../../platform/graphql/entity-refs.js';
import { TeamRoleEnum } from '../user/user.type.js';
import type { TeamRole } from '../../../platform/auth/principal.js';

@ObjectType('Team', { description: 'An entity: a team or a user\'s personal namespace, owning projects' })
@Directive('@key(fields: "name")')
export class Team {
  /** Internal id; not exposed (the name is the public key). */
  id!: string;
  @Field(() => String, { description: ENTITY_DESCRIPTIONS.teamName }) name!: string;
  @Field(() => Date, { description: 'When the team was created' }) createdAt!: Date;
}

@ObjectType('TeamMember', { description: 'A member of a team and their role in it' })
export class TeamMember {
  @Field(() => String, { description: "The member's username" }) username!: string;
  @Field(() => TeamRoleEnum, { description: 'Their role in the team' }) role!: TeamRole;
}

@ObjectType('TeamMembership', { description: "A team a user belongs to and the user's role in it" })
export class TeamMembership {
  @Field(() => String, { description: 'The team (entity) name' }) team!: string;
  @Field(() => TeamRoleEnum, { description: "The user's role in the team" }) role!: TeamRole;
}
