import { Directive, Field, ObjectType } from 'type-graphql';
import { TeamRoleEnum } from '../user/user.type.js';
import type { TeamRole } from '../../../platform/auth/principal.js';

@ObjectType('Team', { description: 'An entity: a team or a user\'s personal namespace, owning projects' })
@Directive('@key(fields: "name")')
export class Team {
  /** Internal id; not exposed (the name is the public key). */
  id!: string;
  @Field(() => String) name!: string;
  @Field(() => Date) createdAt!: Date;
}

@ObjectType('TeamMember')
export class TeamMember {
  @Field(() => String) username!: string;
  @Field(() => TeamRoleEnum) role!: TeamRole;
}

@ObjectType('TeamMembership')
export class TeamMembership {
  @Field(() => String) team!: string;
  @Field(() => TeamRoleEnum) role!: TeamRole;
}
