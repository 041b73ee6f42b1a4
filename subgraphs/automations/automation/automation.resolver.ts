import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, requireProjectAdmin, requireRegistryAdmin, requireTeamMember } from '../../../platform/auth/authorize.js';
import { NotFoundError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Delivery, toDelivery } from '../delivery/delivery.type.js';
import type { AutomationsServices } from '../services.js';
import type { AutomationRow } from '../store.js';
import { toWebhook, Webhook } from '../webhook/webhook.type.js';
import { Automation, CreateAutomationInput, toAutomation } from './automation.type.js';

/** Registry-scope automations need a registry admin, project-scope ones a project admin. */
export function requireScopeAdmin(context: GraphQLContext, automation: { team: string; scope_kind: string; scope_name: string }): void {
  if (automation.scope_kind === 'REGISTRY') requireRegistryAdmin(context, automation.team, automation.scope_name);
  else requireProjectAdmin(context, automation.team, automation.scope_name);
}

@Resolver(() => Automation)
export class AutomationResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => [Automation], { description: 'Automations of a team the caller belongs to' })
  async automations(@Arg('entity', () => String) entity: string, @Ctx() context: GraphQLContext): Promise<Automation[]> {
    requireTeamMember(context, entity);
    return (await this.services.automations.list(entity)).map(toAutomation);
  }

  @Query(() => Automation, { nullable: true })
  async automation(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<Automation | null> {
    requirePrincipal(context);
    const row = await this.services.automations.get(id);
    if (!row) return null;
    requireTeamMember(context, row.team);
    return toAutomation(row);
  }

  @Mutation(() => Automation, { description: 'Registry admins (registry scope) or project admins (project scope): create an active automation' })
  async createAutomation(@Arg('input', () => CreateAutomationInput) input: CreateAutomationInput, @Ctx() context: GraphQLContext): Promise<Automation> {
    requireScopeAdmin(context, { team: input.entity, scope_kind: input.scopeKind, scope_name: input.scopeName });
    const plain = JSON.parse(JSON.stringify(input)) as typeof input;
    return toAutomation(await this.services.automations.create(plain as never, requirePrincipal(context).username));
  }

  @Mutation(() => Automation, { description: 'Pause (false) or resume (true) an automation' })
  async setAutomationEnabled(
    @Arg('id', () => ID) id: string,
    @Arg('enabled', () => Boolean) enabled: boolean,
    @Ctx() context: GraphQLContext,
  ): Promise<Automation> {
    return toAutomation(await this.services.automations.setEnabled(await this.adminAutomation(id, context), enabled));
  }

  @Mutation(() => Boolean)
  async deleteAutomation(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    return this.services.automations.delete(await this.adminAutomation(id, context));
  }

  @FieldResolver(() => Webhook, { nullable: true })
  async webhook(@Root() automation: Automation): Promise<Webhook | null> {
    const row = await this.services.webhooks.get(automation.webhookId);
    return row ? toWebhook(row) : null;
  }

  @FieldResolver(() => [Delivery], { description: 'Delivery history, newest first (automation admins)' })
  async deliveries(
    @Root() automation: Automation,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
    @Ctx() context: GraphQLContext,
  ): Promise<Delivery[]> {
    requireScopeAdmin(context, { team: automation.entity, scope_kind: automation.scopeKind, scope_name: automation.scopeName });
    return (await this.services.deliveries.history(automation.id, limit)).map(toDelivery);
  }

  private async adminAutomation(id: string, context: GraphQLContext): Promise<AutomationRow> {
    requirePrincipal(context);
    const row = await this.services.automations.get(id);
    if (!row) throw new NotFoundError(`Automation ${id} not found`);
    requireScopeAdmin(context, row);
    return row;
  }
}
