import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireTeamAdmin } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { AutomationsServices } from '../services.js';
import { TeamSecret, toSecret } from './secret.type.js';

@Resolver(() => TeamSecret)
export class SecretResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => [TeamSecret], { description: "Team admins: the team's secrets, names only (a plain list: a team keeps a handful of credentials)" })
  async secrets(@Arg('team', () => String, { description: 'The team' }) team: string, @Ctx() context: GraphQLContext): Promise<TeamSecret[]> {
    requireTeamAdmin(context, team);
    return (await this.services.secrets.list(team)).map(toSecret);
  }

  @Mutation(() => TeamSecret, { description: 'Team admins: store a secret (encrypted at rest, never returned)' })
  async createSecret(
    @Arg('team', () => String, { description: 'The team' }) team: string,
    @Arg('name', () => String, { description: 'Secret name (an identifier: it doubles as a payload variable)' }) name: string,
    @Arg('value', () => String, { description: 'The secret value (write-only)' }) value: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TeamSecret> {
    requireTeamAdmin(context, team);
    return toSecret(await this.services.secrets.create(team, name, value));
  }

  @Mutation(() => TeamSecret, { description: 'Team admins: replace a secret\'s value' })
  async rotateSecret(
    @Arg('team', () => String, { description: 'The team' }) team: string,
    @Arg('name', () => String, { description: 'Secret name (an identifier: it doubles as a payload variable)' }) name: string,
    @Arg('value', () => String, { description: 'The secret value (write-only)' }) value: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TeamSecret> {
    requireTeamAdmin(context, team);
    return toSecret(await this.services.secrets.rotate(team, name, value));
  }

  @Mutation(() => Boolean, { description: 'Team admins: delete a secret no webhook uses' })
  async deleteSecret(
    @Arg('team', () => String, { description: 'The team' }) team: string,
    @Arg('name', () => String, { description: 'Secret name' }) name: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    requireTeamAdmin(context, team);
    return this.services.secrets.delete(team, name);
  }
}
