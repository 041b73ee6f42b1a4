import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePlatformAdmin, requirePrincipal } from '../../../platform/auth/authorize.js';
import { ForbiddenError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { ApiKey, toApiKey } from '../api-key/api-key.type.js';
import type { IdentityServices } from '../services.js';
import type { UserRow } from '../store.js';
import { toTeam } from '../team/team.resolver.js';
import { Team, TeamMembership } from '../team/team.type.js';
import { User } from './user.type.js';

export function toUser({ defaultEntity, ...row }: UserRow): User {
  return Object.assign(new User(), row, { defaultEntityName: defaultEntity });
}

@Resolver(() => User)
export class UserResolver {
  constructor(private readonly services: IdentityServices) {}

  @Query(() => User, { nullable: true, description: 'The caller, or null without an API key' })
  async viewer(@Ctx() context: GraphQLContext): Promise<User | null> {
    if (!context.principal) return null;
    const row = await this.services.identity.user(context.principal.userId);
    return row ? toUser(row) : null;
  }

  @Mutation(() => User, { description: 'Platform administrators only. Also creates the user\'s personal entity.' })
  async createUser(
    @Arg('username', () => String, { description: 'Login name (also the personal entity name)' }) username: string,
    @Arg('email', () => String, { nullable: true, description: 'Contact address' }) email: string | null,
    @Arg('isAdmin', () => Boolean, { defaultValue: false, description: 'Make the user a platform administrator' }) isAdmin: boolean,
    @Ctx() context: GraphQLContext,
  ): Promise<User> {
    requirePlatformAdmin(context);
    return toUser(await this.services.identity.createUser({ username, email, isAdmin }));
  }

  @FieldResolver(() => Team, {
    nullable: true,
    description:
      "The entity used when a request names none (each user has one: their team's or their personal entity). An object, as in W&B's `viewer { defaultEntity { name } }`, which the Weave SDKs ask for on `weave.init('project')`",
  })
  async defaultEntity(@Root() user: User): Promise<Team | null> {
    if (!user.defaultEntityName) return null;
    const row = await this.services.identity.team(user.defaultEntityName);
    return row ? toTeam(row) : null;
  }

  @FieldResolver(() => [TeamMembership], { description: "The teams the user belongs to, with the user's role (visible to the user and platform administrators)" })
  async teams(@Root() user: User, @Ctx() context: GraphQLContext): Promise<TeamMembership[]> {
    this.requireSelfOrAdmin(user, context);
    const rows = await this.services.identity.teamsOfUser(user.id);
    return rows.map((row) => Object.assign(new TeamMembership(), { team: row.name, role: row.role }));
  }

  @FieldResolver(() => [ApiKey], { description: "The user's API keys, revoked ones included (a plain list: few by nature; visible to the user and platform administrators)" })
  async apiKeys(@Root() user: User, @Ctx() context: GraphQLContext): Promise<ApiKey[]> {
    this.requireSelfOrAdmin(user, context);
    return (await this.services.identity.apiKeysOfUser(user.id)).map(toApiKey);
  }

  private requireSelfOrAdmin(user: User, context: GraphQLContext): void {
    const principal = requirePrincipal(context);
    if (principal.userId !== user.id && !principal.isAdmin) throw new ForbiddenError('You can only see your own keys and teams');
  }
}
