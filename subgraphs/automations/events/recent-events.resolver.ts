import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { decodeCursor, encodeCursor, pageSize, pagingDescriptions, toConnection, type Connection, type PageLimits } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { AutomationsServices } from '../services.js';
import { eventTypesArg } from './event-types-arg.js';
import { PlatformEvent, PlatformEventConnection, toPlatformEvent } from './platform-event.type.js';

const EVENT_PAGES: PageLimits = { default: 50, max: 500 };
const EVENT_PAGING = pagingDescriptions(EVENT_PAGES, 'platform event');
/** A position in the outbox: (transaction id, event id), both as decimal strings. */
const isPosition = (value: unknown): value is [string, string] =>
  Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string' && /^[0-9]{1,20}$/.test(part));

/**
 * A team's recent activity for dashboards: the platform events of the outbox, newest first, with the access rule of
 * the `platformEvents` subscription (members of the team). To follow new events live, subscribe to `platformEvents`.
 */
@Resolver()
export class RecentEventsResolver {
  constructor(private readonly services: AutomationsServices) {}

  @Query(() => PlatformEventConnection, { description: "A team's platform events, newest first (its members): a dashboard's recent activity" })
  async recentPlatformEvents(
    @Arg('team', () => String, { description: 'The team' }) team: string,
    @Arg('types', () => [String], { nullable: true, description: 'Only events of these types (default: all; an empty list is refused)' }) types: string[] | null,
    @Arg('first', () => Int, { nullable: true, description: EVENT_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: EVENT_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<PlatformEvent>> {
    requireTeamMember(context, team);
    const selected = eventTypesArg(types);
    const size = pageSize(first, EVENT_PAGES);
    const position = decodeCursor(after, isPosition);
    const events = await this.services.events.recent(team, size + 1, { before: position ? { txId: position[0], id: position[1] } : null, types: selected });
    return toConnection(events, size, {
      after,
      cursorOf: (event) => encodeCursor(event.cursor.split('.')),
      toNode: toPlatformEvent,
    });
  }
}
