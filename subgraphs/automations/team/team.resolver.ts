import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { defineTeamRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { AutomationsServices } from '../services.js';

export const Team = defineTeamRef();
export type Team = InstanceType<typeof Team>;

@Resolver(() => Team)
export class AutomationsTeamResolver {
  constructor(private readonly services: AutomationsServices) {}

  @FieldResolver(() => Int, { description: 'Number of webhooks the team has defined' })
  webhookCount(@Root() team: Team, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, team.name);
    return this.services.store.countWebhooks(team.name);
  }
}
