import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, requireProjectAdmin, requireRegistryAdmin, requireTeamMember } from '../../../platform/auth/authorize.js';
import { NotFoundError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { GraphCaller } from '../../../platform/graphql/platform-graph.js';
import { decodeCursor, encodeCursor, pageSize, pagingDescriptions, toConnection, type Connection, type PageLimits } from '../../../platform/graphql/connection.js';
import { DELIVERY_PAGING, deliveryPage } from '../delivery/delivery-pages.js';
import { DeliveryConnection, type Delivery } from '../delivery/delivery.type.js';
import type { AutomationsServices } from '../services.js';
import type { AutomationRow } from '../store.js';
import { toWebhook, Webhook } from '../webhook/webhook.type.js';
import { Automation, AutomationConnection, CreateAutomationInput, toAutomation } from './automation.type.js';

/** A team's automations, by name (a keyset: the name is unique in the team). */
const AUTOMATION_PAGES: PageLimits = { default: 100, max: 500 };
const AUTOMATION_PAGING = pagingDescriptions(AUTOMATION_PAGES, 'automation');
const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 128;

/** Registry-scope automations need a registry admin, project-scope ones a project admin. */
export function requireScopeAdmin(context: GraphQLContext, automation: { team: string; scope_kind: string; scope_name: string }): void {
  if (automation.scope_kind === 'REGISTRY') requireRegistryAdmin(context, automation.team, automation.scope_name);
  else requireProjectAdmin(context, automation.team, automation.scope_name);
}

/** The caller as the platform graph runs operations for it (the scope's existence is asked as the caller). */
function callerOf(context: GraphQLContext): GraphCaller {
  return { principal: requirePrincipal(context), requestId: context.requestId, ...(context.signal ? { signal: context.signal } : {}) };
}

@Resolver(() => Automation)
export class AutomationResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => AutomationConnection, { description: 'Automations of a team the caller belongs to, by name' })
  async automations(
    @Arg('entity', () => String, { description: 'The team' }) entity: string,
    @Arg('first', () => Int, { nullable: true, description: AUTOMATION_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: AUTOMATION_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<Automation>> {
    requireTeamMember(context, entity);
    const size = pageSize(first, AUTOMATION_PAGES);
    const afterName = decodeCursor(after, isName);
    const rows = await this.services.automations.list(entity, size + 1, afterName);
    return toConnection(rows, size, { after, cursorOf: (row) => encodeCursor(row.name), toNode: toAutomation });
  }

  @Query(() => Automation, { nullable: true, description: 'An automation of a team the caller belongs to; null when there is none' })
  async automation(@Arg('id', () => ID, { description: 'Id of the automation' }) id: string, @Ctx() context: GraphQLContext): Promise<Automation | null> {
    requirePrincipal(context);
    const row = await this.services.automations.get(id);
    if (!row) return null;
    requireTeamMember(context, row.team);
    return toAutomation(row);
  }

  @Mutation(() => Automation, { description: 'Registry admins (registry scope) or project admins (project scope): create an active automation' })
  async createAutomation(@Arg('input', () => CreateAutomationInput, { description: 'The automation' }) input: CreateAutomationInput, @Ctx() context: GraphQLContext): Promise<Automation> {
    requireScopeAdmin(context, { team: input.entity, scope_kind: input.scopeKind, scope_name: input.scopeName });
    const plain = JSON.parse(JSON.stringify(input)) as typeof input;
    return toAutomation(await this.services.automations.create(plain as never, callerOf(context)));
  }

  @Mutation(() => Automation, {
    description:
      "Scope admins: replace an automation's definition (the same input and checks as createAutomation, in the same team); its id, creator and delivery history stay",
  })
  async updateAutomation(
    @Arg('id', () => ID, { description: 'Id of the automation' }) id: string,
    @Arg('input', () => CreateAutomationInput, { description: 'The new definition' }) input: CreateAutomationInput,
    @Ctx() context: GraphQLContext,
  ): Promise<Automation> {
    const row = await this.adminAutomation(id, context);
    requireScopeAdmin(context, { team: input.entity, scope_kind: input.scopeKind, scope_name: input.scopeName });
    const plain = JSON.parse(JSON.stringify(input)) as typeof input;
    return toAutomation(await this.services.automations.update(row, plain as never, callerOf(context)));
  }

  @Mutation(() => Automation, { description: 'Pause (false) or resume (true) an automation' })
  async setAutomationEnabled(
    @Arg('id', () => ID, { description: 'Id of the automation' }) id: string,
    @Arg('enabled', () => Boolean, { description: 'true: resume, false: pause' }) enabled: boolean,
    @Ctx() context: GraphQLContext,
  ): Promise<Automation> {
    return toAutomation(await this.services.automations.setEnabled(await this.adminAutomation(id, context), enabled));
  }

  @Mutation(() => Boolean, { description: 'Delete an automation (its scope admins); its delivery history goes with it' })
  async deleteAutomation(@Arg('id', () => ID, { description: 'Id of the automation' }) id: string, @Ctx() context: GraphQLContext): Promise<boolean> {
    return this.services.automations.delete(await this.adminAutomation(id, context));
  }

  @FieldResolver(() => Webhook, { nullable: true, description: 'The webhook it calls; null if it was deleted' })
  async webhook(@Root() automation: Automation): Promise<Webhook | null> {
    const row = await this.services.webhooks.get(automation.webhookId);
    return row ? toWebhook(row) : null;
  }

  @FieldResolver(() => DeliveryConnection, { description: 'Delivery history, newest first (automation admins)' })
  async deliveries(
    @Root() automation: Automation,
    @Arg('first', () => Int, { nullable: true, description: DELIVERY_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: DELIVERY_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<Delivery>> {
    requireScopeAdmin(context, { team: automation.entity, scope_kind: automation.scopeKind, scope_name: automation.scopeName });
    return deliveryPage(this.services.deliveries, { automationId: automation.id }, first, after);
  }

  private async adminAutomation(id: string, context: GraphQLContext): Promise<AutomationRow> {
    requirePrincipal(context);
    const row = await this.services.automations.get(id);
    if (!row) throw new NotFoundError(`Automation ${id} not found`);
    requireScopeAdmin(context, row);
    return row;
  }
}
