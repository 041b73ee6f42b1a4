import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import { NotFoundError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { requireScopeAdmin } from '../automation/automation.resolver.js';
import type { AutomationsServices } from '../services.js';
import type { DeliveryRow } from '../store.js';
import { Delivery, DeliveryAttempt, toAttempt, toDelivery } from './delivery.type.js';

@Resolver(() => Delivery)
export class DeliveryResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => Delivery, { nullable: true })
  async delivery(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<Delivery | null> {
    const row = await this.services.deliveries.get(id);
    if (!row) return null;
    await this.requireAdmin(row, context);
    return toDelivery(row);
  }

  @Mutation(() => Delivery, { description: 'Send a finished delivery again, with the same delivery id' })
  async redeliver(@Arg('deliveryId', () => ID) deliveryId: string, @Ctx() context: GraphQLContext): Promise<Delivery> {
    requirePrincipal(context);
    const row = await this.services.deliveries.get(deliveryId);
    if (!row) throw new NotFoundError(`Delivery ${deliveryId} not found`);
    await this.requireAdmin(row, context);
    return toDelivery(await this.services.deliveries.redeliver(row));
  }

  @FieldResolver(() => [DeliveryAttempt])
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
