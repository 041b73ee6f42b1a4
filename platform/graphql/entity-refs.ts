import { Directive, Field, ObjectType } from 'type-graphql';

/**
 * Descriptions of the entities' key fields, the same in identity (which owns them) and in every stub, so the composed
 * graph has one description per field.
 */
export const ENTITY_DESCRIPTIONS = {
  projectEntity: 'Owning entity (team) name',
  projectName: 'Project name, unique within its entity',
  teamName: 'Team (entity) name, unique ignoring case',
  userId: 'User id',
} as const;

/**
 * Stubs of the entities owned by `identity`, for the family subgraphs that add fields to them. type-graphql keeps
 * metadata per class, so each subgraph calls these factories to get classes of its own.
 */
export function defineProjectRef() {
  @ObjectType('Project')
  @Directive('@key(fields: "entity name")')
  class ProjectRef {
    @Field(() => String, { description: ENTITY_DESCRIPTIONS.projectEntity }) entity!: string;
    @Field(() => String, { description: ENTITY_DESCRIPTIONS.projectName }) name!: string;
  }
  return ProjectRef;
}

export function defineTeamRef() {
  @ObjectType('Team')
  @Directive('@key(fields: "name")')
  class TeamRef {
    @Field(() => String, { description: ENTITY_DESCRIPTIONS.teamName }) name!: string;
  }
  return TeamRef;
}

export function defineUserRef() {
  @ObjectType('User')
  @Directive('@key(fields: "id")')
  class UserRef {
    @Field(() => String, { description: ENTITY_DESCRIPTIONS.userId }) id!: string;
  }
  return UserRef;
}

/** Reference resolvers for stubs: the representation already holds everything the stub has. */
export const passThroughReference = (representation: Record<string, unknown>) => representation;
