import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, requireTeamAdmin } from '../../../platform/auth/authorize.js';
import { NotFoundError, ValidationFailedError } from '../../../platform/errors.js';
import type { Connection } from '../../../platform/graphql/connection.js';
import { DELIVERY_PAGING, deliveryPage } from './delivery-pages.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { requireScopeAdmin } from '../automation/automation.resolver.js';
import type { AutomationsServices } from '../services.js';
import type { DeliveryRow } from '../store.js';
import { Delivery, DeliveryAttempt, DeliveryConnection, DeliveryStatusEnum, toAttempt, toDelivery } from './delivery.type.js';

@Resolver(() => Delivery)
export class DeliveryResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => Delivery, { nullable: true, description: "A delivery (its automation's admins); null when there is none" })
  async delivery(@Arg('id', () => ID, { description: 'Id of the delivery' }) id: string, @Ctx() context: GraphQLContext): Promise<Delivery | null> {
    const row = await this.services.deliveries.get(id);
    if (!row) return null;
    await this.requireAdmin(row, context);
    return toDelivery(row);
  }

  @Mutation(() => Delivery, { description: 'Send a finished delivery again, with the same delivery id' })
  async redeliver(@Arg('deliveryId', () => ID, { description: 'Id of the delivery' }) deliveryId: string, @Ctx() context: GraphQLContext): Promise<Delivery> {
    requirePrincipal(context);
    const row = await this.services.deliveries.get(deliveryId);
    if (!row) throw new NotFoundError(`Delivery ${deliveryId} not found`);
    await this.requireAdmin(row, context);
    return toDelivery(await this.services.deliveries.redeliver(row));
  }

  @Query(() => DeliveryConnection, {
    description: "Team admins: the team's delivery log, newest first, with each delivery's attempts (status code, duration, error, time)",
  })
  async deliveries(
    @Arg('team', () => String, { description: 'The team' }) team: string,
    @Arg('automationId', () => ID, { nullable: true, description: 'Only the deliveries of this automation' }) automationId: string | null,
    @Arg('status', () => DeliveryStatusEnum, { nullable: true, description: 'Only deliveries in this state' }) status: string | null,
    @Arg('first', () => Int, { nullable: true, description: DELIVERY_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: DELIVERY_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<Delivery>> {
    requireTeamAdmin(context, team);
    if (automationId && !/^[0-9a-f-]{36}$/i.test(automationId)) {
      throw new ValidationFailedError([{ loc: ['automationId'], msg: 'Input should be an automation id (a UUID)', type: 'uuid_parsing' }]);
    }
    return deliveryPage(this.services.deliveries, { team, automationId: automationId ?? undefined, status: status ?? null }, first, after);
  }

  @FieldResolver(() => [DeliveryAttempt], { description: 'Every attempt so far, oldest first (a plain list: bounded by the attempt budget)' })
  async attempts(@Root() delivery: Delivery): Promise<DeliveryAttempt[]> {
    return (await this.services.deliveries.attempts(delivery.id)).map(toAttempt);
  }

  @FieldResolver(() => String, { description: 'The body sent, with every secret shown as [redacted]' })
  payload(@Root() delivery: Delivery): Promise<string> {
    return this.services.deliveries.displayPayload(delivery.row);
  }

  private async requireAdmin(row: DeliveryRow, context: GraphQLContext): Promise<void> {
    const automation = await this.services.automations.get(row.automation_id);
    if (!automation) throw new NotFoundError(`Delivery ${row.id} not found`);
    requireScopeAdmin(context, automation);
  }
}
