import { decodeCursor, encodeCursor, pageSize, pagingDescriptions, toConnection, type Connection, type PageLimits } from '../../platform/graphql/connection.js';

/**
 * Page limits and cursors of the registry's connections. Lists ordered by name (registries, collections) page by
 * a keyset on the name, unique within its owner; a collection's versions by their index; runs by creation time.
 */
export const NAME_PAGES: PageLimits = { default: 100, max: 500 };
export const VERSION_PAGES: PageLimits = { default: 100, max: 500 };
export const RUN_PAGES: PageLimits = { default: 100, max: 500 };

export const COLLECTION_PAGING = pagingDescriptions(NAME_PAGES, 'collection');
export const REGISTRY_PAGING = pagingDescriptions(NAME_PAGES, 'registry');
export const VERSION_PAGING = pagingDescriptions(VERSION_PAGES, 'version');
export const RUN_PAGING = pagingDescriptions(RUN_PAGES, 'run');

const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 512;
const isIndex = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isRunPosition = (value: unknown): value is [string, string] =>
  Array.isArray(value) && value.length === 2 && /^[0-9]{1,19}$/.test(String(value[0])) && /^[0-9a-f-]{36}$/i.test(String(value[1]));

/** A page of a list ordered by name: `load` gets the page size plus one and the name to continue after. */
export async function pageByName<Row extends { name: string }, T>(
  first: number | null,
  after: string | null,
  load: (page: { limit: number; afterName: string | null }) => Promise<Row[]>,
  toNode: (row: Row) => T,
): Promise<Connection<T>> {
  const size = pageSize(first, NAME_PAGES);
  const rows = await load({ limit: size + 1, afterName: decodeCursor(after, isName) });
  return toConnection(rows, size, { after, cursorOf: (row) => encodeCursor(row.name), toNode });
}

/** A page of a collection's versions (oldest first), keyed by their index in the collection. */
export async function pageByIndex<Row extends { version_index: number }, T>(
  first: number | null,
  after: string | null,
  load: (page: { limit: number; afterIndex: number | null }) => Promise<Row[]>,
  toNode: (rows: Row[]) => Promise<T[]>,
): Promise<Connection<T>> {
  const size = pageSize(first, VERSION_PAGES);
  const rows = await load({ limit: size + 1, afterIndex: decodeCursor(after, isIndex) });
  const page = rows.slice(0, size);
  const nodes = await toNode(page);
  const connection = toConnection(
    page.map((row, index) => ({ row, node: nodes[index]! })),
    size,
    { after, cursorOf: ({ row }) => encodeCursor(row.version_index), toNode: ({ node }) => node },
  );
  // The page was cut before loading its nodes: whether more follow is the fetched rows' say.
  connection.pageInfo.hasNextPage = rows.length > size;
  return connection;
}

/** The keyset position an `after` cursor of a newest-first run list encodes. */
export function runPosition(after: string | null): { createdMicros: string; id: string } | null {
  const position = decodeCursor(after, isRunPosition);
  return position ? { createdMicros: position[0], id: position[1] } : null;
}

export function runCursor(row: { created_us: string; id: string }): string {
  return encodeCursor([row.created_us, row.id]);
}
