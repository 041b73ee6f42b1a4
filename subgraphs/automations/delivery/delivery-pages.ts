import { decodeCursor, encodeCursor, pageSize, pagingDescriptions, toConnection, type Connection, type PageLimits } from '../../../platform/graphql/connection.js';
import type { DeliveryFilter } from '../store.js';
import type { DeliveryService } from './delivery.service.js';
import { toDelivery, type Delivery } from './delivery.type.js';

/** Delivery lists (an automation's history, a team's log): newest first, keyset-paged by (creation time, id). */
export const DELIVERY_PAGES: PageLimits = { default: 50, max: 500 };
export const DELIVERY_PAGING = pagingDescriptions(DELIVERY_PAGES, 'delivery');

const isPosition = (value: unknown): value is [string, string] =>
  Array.isArray(value) && value.length === 2 && /^[0-9]{1,19}$/.test(String(value[0])) && /^[0-9a-f-]{36}$/i.test(String(value[1]));

export async function deliveryPage(
  deliveries: DeliveryService,
  filter: DeliveryFilter,
  first: number | null,
  after: string | null,
): Promise<Connection<Delivery>> {
  const size = pageSize(first, DELIVERY_PAGES);
  const position = decodeCursor(after, isPosition);
  const rows = await deliveries.page(filter, size + 1, position ? { createdMicros: position[0], id: position[1] } : null);
  return toConnection(rows, size, { after, cursorOf: (row) => encodeCursor([row.created_us, row.id]), toNode: toDelivery });
}
