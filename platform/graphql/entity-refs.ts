import { Directive, Field, ObjectType } from 'type-graphql';

/**
 * Stubs of the entities owned by `identity`, for the family subgraphs that add fields to them. type-graphql keeps
 * metadata per class, so each subgraph calls these factories to get classes of its own.
 */
export function defineProjectRef() {
  @ObjectType('Project')
  @Directive('@key(fields: "entity name")')
  class ProjectRef {
    @Field(() => String) entity!: string;
    @Field(() => String) name!: string;
  }
  return ProjectRef;
}

export function defineTeamRef() {
  @ObjectType('Team')
  @Directive('@key(fields: "name")')
  class TeamRef {
    @Field(() => String) name!: string;
  }
  return TeamRef;
}

export function defineUserRef() {
  @ObjectType('User')
  @Directive('@key(fields: "id")')
  class UserRef {
    @Field(() => String) id!: string;
  }
  return UserRef;
}

/** Reference resolvers for stubs: the representation already holds everything the stub has. */
export const passThroughReference = (representation: Record<string, unknown>) => representation;
