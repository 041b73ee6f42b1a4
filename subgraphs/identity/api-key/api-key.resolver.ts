import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import { ForbiddenError, NotFoundError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { IdentityServices } from '../services.js';
import { ApiKey, CreatedApiKey, toApiKey } from './api-key.type.js';

@Resolver(() => ApiKey)
export class ApiKeyResolver {
  constructor(private readonly services: IdentityServices) {}

  @Mutation(() => CreatedApiKey, { description: 'Creates a key for the caller (administrators: for any user)' })
  async createApiKey(
    @Arg('name', () => String, { description: 'What the key is for' }) name: string,
    @Arg('username', () => String, { nullable: true, description: 'Administrators: the user to create it for (default: the caller)' }) username: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<CreatedApiKey> {
    const principal = requirePrincipal(context);
    let userId = principal.userId;
    if (username && username !== principal.username) {
      if (!principal.isAdmin) throw new ForbiddenError('Only platform administrators may create keys for other users');
      const user = await this.services.identity.userByUsername(username);
      if (!user) throw new NotFoundError(`User "${username}" does not exist`);
      userId = user.id;
    }
    const created = await this.services.identity.createApiKey(userId, name);
    return Object.assign(new CreatedApiKey(), { key: created.key, apiKey: toApiKey(created.apiKey) });
  }

  @Mutation(() => ApiKey, { description: 'Revokes a key of the caller (administrators: of anyone); it stops working at once' })
  async revokeApiKey(@Arg('id', () => ID, { description: 'Id of the key' }) id: string, @Ctx() context: GraphQLContext): Promise<ApiKey> {
    const principal = requirePrincipal(context);
    return toApiKey(await this.services.identity.revokeApiKey(principal, id));
  }
}
