import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requireTeamAdmin, requireTeamMember } from '../../../platform/auth/authorize.js';
import { NotFoundError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { AutomationsServices } from '../services.js';
import type { WebhookRow } from '../store.js';
import { CreateWebhookInput, toWebhook, Webhook, WebhookTestResult } from './webhook.type.js';

@Resolver(() => Webhook)
export class WebhookResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => [Webhook], {
    description: "The team's webhooks (a plain list: a team defines a handful of endpoints, each by hand)",
  })
  async webhooks(@Arg('team', () => String, { description: 'The team' }) team: string, @Ctx() context: GraphQLContext): Promise<Webhook[]> {
    requireTeamMember(context, team);
    return (await this.services.webhooks.list(team)).map(toWebhook);
  }

  @Mutation(() => Webhook, { description: 'Team admins: define a webhook' })
  async createWebhook(@Arg('input', () => CreateWebhookInput, { description: 'The webhook' }) input: CreateWebhookInput, @Ctx() context: GraphQLContext): Promise<Webhook> {
    requireTeamAdmin(context, input.team);
    return toWebhook(await this.services.webhooks.create({ ...input }));
  }

  @Mutation(() => Boolean, { description: 'Team admins: delete a webhook no automation uses' })
  async deleteWebhook(@Arg('id', () => ID, { description: 'Id of the webhook' }) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    return this.services.webhooks.delete(await this.adminWebhook(id, context));
  }

  @Mutation(() => Webhook, { description: 'Team admins: re-enable a webhook disabled by a 410 answer' })
  async enableWebhook(@Arg('id', () => ID, { description: 'Id of the webhook' }) id: string, @Ctx() context: GraphQLContext): Promise<Webhook> {
    return toWebhook(await this.services.webhooks.enable(await this.adminWebhook(id, context)));
  }

  @Mutation(() => WebhookTestResult, { description: 'Team admins: POST a test payload with the real credentials; nothing is stored' })
  async testWebhook(
    @Arg('id', () => ID, { description: 'Id of the webhook' }) id: string,
    @Arg('payload', () => String, { nullable: true, description: 'The body to send (a JSON text; default: a sample event)' }) payload: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<WebhookTestResult> {
    const result = await this.services.webhooks.test(await this.adminWebhook(id, context), payload ?? null);
    return Object.assign(new WebhookTestResult(), result);
  }

  @FieldResolver(() => String, { nullable: true, description: 'Name of the access-token secret' })
  accessTokenSecret(@Root() webhook: Webhook): Promise<string | null> {
    return this.services.webhooks.secretName(webhook.accessTokenSecretId);
  }

  @FieldResolver(() => String, { nullable: true, description: 'Name of the signing secret' })
  signingSecret(@Root() webhook: Webhook): Promise<string | null> {
    return this.services.webhooks.secretName(webhook.signingSecretId);
  }

  private async adminWebhook(id: string, context: GraphQLContext): Promise<WebhookRow> {
    const webhook = await this.services.webhooks.get(id);
    if (!webhook) throw new NotFoundError(`Webhook ${id} not found`);
    requireTeamAdmin(context, webhook.team);
    return webhook;
  }
}
