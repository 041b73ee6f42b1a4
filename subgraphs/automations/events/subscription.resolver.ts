import { Repeater } from '@repeaterjs/repeater';
import { Arg, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import { requirePrincipal, requireTeamMember } from '../../../platform/auth/authorize.js';
import { isTeamMember } from '../../../platform/auth/principal.js';
import { BadRequestError } from '../../../platform/errors.js';
import { parseCursor, type PlatformEvent as PlatformEventRecord } from '../../../platform/events/index.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Delivery, toDelivery } from '../delivery/delivery.type.js';
import { DELIVERY_UPDATES_CHANNEL, type DeliveryRow } from '../store.js';
import { PlatformEvent, toPlatformEvent } from './platform-event.type.js';
import { eventTypesArg } from './event-types-arg.js';
import { servicesOf } from './subscription-context.js';

interface PlatformEventsArgs {
  after?: string | null;
  entity?: string | null;
  types?: string[] | null;
}

/**
 * Replays events after `after` (or, without it, starts at the newest committed event) and then follows new ones
 * as they commit. Callers see only events of teams they belong to. The automation engine consumes this same
 * resolver (engine/automation-engine.ts).
 */
async function subscribePlatformEvents({ args, context }: SubscribeResolverData<unknown, Record<string, unknown>, GraphQLContext>): Promise<AsyncIterable<PlatformEventRecord>> {
  const principal = requirePrincipal(context);
  const { after, entity, types: typesArg } = args as PlatformEventsArgs;
  const types = eventTypesArg(typesArg);
  if (entity) requireTeamMember(context, entity);
  if (after && !parseCursor(after)) throw new BadRequestError(`"${after}" is not an event cursor`, { param: 'after' });
  const { events } = servicesOf(context);
  const start = after ?? (await events.latestCursor());
  return events.subscribe(start, {
    types,
    filter: (event) => (!entity || event.entity === entity) && isTeamMember(principal, event.entity),
  });
}

/** Each change of a delivery of `team` (created, attempted, succeeded, failed, redelivered). */
function subscribeDeliveryUpdates({ args, context }: SubscribeResolverData<unknown, Record<string, unknown>, GraphQLContext>): AsyncIterable<DeliveryRow> {
  const team = (args as { team: string }).team;
  requireTeamMember(context, team);
  const services = servicesOf(context);
  return new Repeater<DeliveryRow>(async (push, stop) => {
    // Notifications carry the delivery id (empty after a reconnect: nothing to re-read then).
    const stopListening = await services.listener.listen(DELIVERY_UPDATES_CHANNEL, (id) => {
      if (!id) return;
      void services.store.delivery(id).then((row) => {
        if (row && row.team === team) void push(row);
      });
    });
    await stop;
    stopListening();
  });
}

@Resolver()
export class SubscriptionResolver {
  @Subscription(() => PlatformEvent, {
    subscribe: subscribePlatformEvents,
    description: 'Platform events of the teams you belong to, after a cursor, then live (graphql-ws at /graphql/ws)',
  })
  platformEvents(
    @Root() event: PlatformEventRecord,
    @Arg('after', () => String, { nullable: true, description: 'Resume after this cursor; default: only new events' }) _after: string | null,
    @Arg('entity', () => String, { nullable: true, description: 'Only events of this team' }) _entity: string | null,
    @Arg('types', () => [String], { nullable: true, description: 'Only events of these types (e.g. RUN_STATE, LINK_ARTIFACT); default: every type (an empty list is refused)' })
    _types: string[] | null,
  ): PlatformEvent {
    return toPlatformEvent(event);
  }

  @Subscription(() => Delivery, { subscribe: subscribeDeliveryUpdates, description: 'Delivery changes of a team (graphql-ws at /graphql/ws)' })
  deliveryUpdates(@Root() delivery: DeliveryRow, @Arg('team', () => String, { description: 'The team' }) _team: string): Delivery {
    return toDelivery(delivery);
  }
}
