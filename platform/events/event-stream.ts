import { Repeater } from '@repeaterjs/repeater';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Logger } from '../logger.js';
import { reportConsumerPosition, type ConsumerPosition } from './consumer-positions.js';
import { formatCursor, parseCursor, parseNotifiedTypes, type PlatformEvent } from './event.js';
import { NotificationListener } from './notification-listener.js';
import { EVENTS_CHANNEL, EVENTS_SCHEMA } from './schema.js';

const PAGE_SIZE = 500;
/**
 * When committed events are held back behind a still-running transaction, re-read after this long: the running
 * transaction may never publish an event (it may not even be ours), so no NOTIFY would come.
 */
const SETTLE_MS = 5;

export interface EventPage {
  /** The settled events read, in stream order (with `types`, only the events of those types). */
  events: PlatformEvent[];
  /** Where the next read starts: after the last event read (`after` when there was none). */
  cursor: string;
  /** As many events as the limit were read: more may follow at once. */
  full: boolean;
  /** Committed events exist after the page but are held back until older transactions finish. */
  heldBack: boolean;
}

export interface SubscribeOptions {
  /**
   * Only events of these types, read through their own index, and woken only by commits of these types: a
   * subscriber of rare events pays neither for the rows nor for the wake-ups of frequent ones (a traced inference
   * completion per request, hundreds a second under load, each with its messages and output).
   */
  types?: readonly string[];
  /**
   * Events come without their payloads (an empty object): for a consumer that reads the payloads inside the
   * database, in the statement that applies them (`eventRows`), so they never travel to the process and back.
   */
  withoutPayloads?: boolean;
  /** Only yield events the subscriber may see; the cursor still advances past the others. */
  filter?: (event: PlatformEvent) => boolean;
  /** Events read at a time (default 500): subscribePages' batches are at most this long. */
  pageSize?: number;
  /**
   * Once woken by a notification, wait this long before reading, so the events committed meanwhile are read as one
   * page (default 0: read at once). For a consumer of frequent events that applies each page in one transaction:
   * fewer, larger transactions, each costing its round trips on the event loop of a process that serves requests;
   * the events arrive up to this much later.
   */
  gatherMs?: number;
}

/**
 * Reads the outbox in commit-safe order and follows it live: replay after a cursor, then wait for NOTIFY.
 *
 * Ordering: events are ordered by (writing transaction id, event id), and a read only returns events whose
 * transaction id is below the xmin of the current snapshot — i.e. older than every transaction still running.
 * A transaction that commits later necessarily has a larger transaction id than anything already returned, so
 * nothing can commit "behind" a cursor. The gap between replay and LISTEN is closed by listening first and by
 * flagging each subscriber notified during its read (it reads again before it waits).
 */
export class PlatformEventStream {
  private readonly listener: NotificationListener;
  private readonly ownsListener: boolean;
  private readonly waiters = new Set<Waiter>();
  private unlisten: (() => void) | undefined;
  private listening: Promise<void> | undefined;

  /**
   * `listen`: the process's shared LISTEN connection (closed by whoever created it), or a connection string for a
   * listener of the stream's own (closed by `close()`).
   */
  constructor(
    private readonly root: Kysely<any>,
    listen: string | NotificationListener,
    logger: Logger,
  ) {
    this.ownsListener = typeof listen === 'string';
    this.listener = typeof listen === 'string' ? new NotificationListener(listen, logger) : listen;
  }

  /**
   * Up to `limit` settled events after `after` (with `types`, only events of those types: found through their own
   * index, so the rows of other types are neither read nor sent).
   */
  async read(after: string, limit = PAGE_SIZE, types?: readonly string[], { withoutPayloads = false } = {}): Promise<EventPage> {
    const position = parseCursor(after);
    if (!position) throw new Error(`invalid event cursor "${after}"`);
    const payload = withoutPayloads ? sql`'{}'::jsonb` : sql`e.payload`;
    const { rows } = await sql<EventRow & { settled: boolean }>`
      select e.id, e.tx_id::text as tx, e.type, e.entity, e.project, e.registry, e.author, ${payload} as payload, e.created_at,
             e.tx_id < pg_snapshot_xmin(pg_current_snapshot()) as settled
      from ${sql.table(`${EVENTS_SCHEMA}.events`)} as e
      where ${ofTypes(types)} (e.tx_id, e.id) > (${position.txId.toString()}::xid8, ${position.id.toString()}::bigint)
      -- the xid8 column, never its text rendering ("1002" sorts before "986" as text)
      order by e.tx_id, e.id
      limit ${limit}`.execute(this.root);
    const events: PlatformEvent[] = [];
    let heldBack = false;
    for (const row of rows) {
      if (!row.settled) {
        heldBack = true;
        break;
      }
      events.push(toPlatformEvent(row));
    }
    return { events, cursor: events.at(-1)?.cursor ?? after, full: events.length === limit, heldBack };
  }

  /**
   * Settled events of one team, newest first (the reverse of the stream's order): `limit` of them, those before the
   * position (transaction id, event id) `before` when given, only of `types` when given. For "recent activity" lists.
   */
  async recent(entity: string, limit: number, options: { before?: { txId: string; id: string } | null; types?: readonly string[] | null } = {}): Promise<PlatformEvent[]> {
    const before = options.before ? sql`and (e.tx_id, e.id) < (${options.before.txId}::xid8, ${options.before.id}::bigint)` : sql``;
    const { rows } = await sql<EventRow>`
      select e.id, e.tx_id::text as tx, e.type, e.entity, e.project, e.registry, e.author, e.payload, e.created_at
      from ${sql.table(`${EVENTS_SCHEMA}.events`)} as e
      where ${ofTypes(options.types ?? undefined)} e.entity = ${entity} and e.tx_id < pg_snapshot_xmin(pg_current_snapshot()) ${before}
      order by e.tx_id desc, e.id desc
      limit ${limit}`.execute(this.root);
    return rows.map(toPlatformEvent);
  }

  /** The cursor after the newest event committed so far (for subscribers that want only new events). */
  async latestCursor(): Promise<string> {
    const { rows } = await sql<{ tx: string | null; id: number | null }>`
      select e.tx_id::text as tx, e.id from ${sql.table(`${EVENTS_SCHEMA}.events`)} as e
      where e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
      order by e.tx_id desc, e.id desc limit 1`.execute(this.root);
    const row = rows[0];
    return row?.tx ? formatCursor(row.tx, row.id!) : '0.0';
  }

  /**
   * Every event after `after`, then each new one as it commits, until the consumer calls `return()` (which
   * resolves promptly, also while waiting).
   */
  subscribe(after: string, options: SubscribeOptions = {}): AsyncIterableIterator<PlatformEvent> {
    const pages = this.subscribePages(after, options);
    return new Repeater<PlatformEvent>(async (push, stop) => {
      void stop.then(() => pages.return?.());
      for await (const page of pages) {
        for (const event of page) await push(event);
      }
      stop();
    });
  }

  /**
   * The same events as `subscribe`, as the non-empty batches they are read in (up to a page of the outbox each):
   * for consumers that apply a backlog in one transaction rather than one per event.
   */
  subscribePages(after: string, options: SubscribeOptions = {}): AsyncIterableIterator<PlatformEvent[]> {
    if (!parseCursor(after)) throw new Error(`invalid event cursor "${after}"`);
    const { types, pageSize = PAGE_SIZE, withoutPayloads, gatherMs = 0 } = options;
    return new Repeater<PlatformEvent[]>(async (push, stop) => {
      const waiter: Waiter = { types: types ? new Set(types) : undefined, notified: false, stopped: false };
      // Stopping wakes the wait in progress, through one reaction to `stop` for the subscription's life. Racing each
      // wait against `stop` instead added a reaction to it per wait, all kept until the subscription ended (≈ 600
      // bytes a wait: a subscriber woken per flush under load kept tens of kilobytes more every second).
      void stop.then(() => {
        waiter.stopped = true;
        waiter.wake?.();
        waiter.interrupt?.();
      });
      await this.ensureListening();
      this.waiters.add(waiter);
      try {
        let cursor = after;
        while (!waiter.stopped) {
          // A notification that arrives while the page is read is news for the next wait.
          waiter.notified = false;
          const page = await this.read(cursor, pageSize, types, { withoutPayloads });
          cursor = page.cursor;
          const wanted = options.filter ? page.events.filter(options.filter) : page.events;
          if (wanted.length > 0) await push(wanted);
          if (waiter.stopped) return;
          if (page.full) continue;
          await this.notified(waiter, page.heldBack ? SETTLE_MS : undefined);
          if (gatherMs > 0 && !page.heldBack) await this.gathering(waiter, gatherMs);
        }
      } finally {
        this.waiters.delete(waiter);
      }
    });
  }

  /** Records a durable consumer's position, which the event log's retention respects (consumer-positions.ts). */
  reportPosition(position: ConsumerPosition): Promise<void> {
    return reportConsumerPosition(this.root, position);
  }

  async close(): Promise<void> {
    this.unlisten?.();
    if (this.ownsListener) await this.listener.close();
    for (const waiter of this.waiters) waiter.wake?.();
  }

  private ensureListening(): Promise<void> {
    this.listening ??= this.listener
      .listen(EVENTS_CHANNEL, (payload) => {
        const published = parseNotifiedTypes(payload);
        for (const waiter of this.waiters) {
          if (waiter.types && published && !published.some((type) => waiter.types!.has(type))) continue;
          waiter.notified = true;
          waiter.wake?.();
        }
      })
      .then((unlisten) => {
        this.unlisten = unlisten;
      })
      .catch((error) => {
        this.listening = undefined;
        throw error;
      });
    return this.listening;
  }

  /** Resolves after `ms` (notifications meanwhile do not end it), or at once when the waiter is stopped. */
  private gathering(waiter: Waiter, ms: number): Promise<void> {
    if (waiter.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        waiter.interrupt = undefined;
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiter.interrupt = done;
    });
  }

  /** Resolves when the waiter was notified since it last read, or stopped, or after `timeoutMs`. */
  private notified(waiter: Waiter, timeoutMs?: number): Promise<void> {
    if (waiter.notified || waiter.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        waiter.wake = undefined;
        clearTimeout(timer);
        resolve();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
      waiter.wake = done;
    });
  }
}

/** A subscribePages loop between reads: woken by notifications naming one of its types (or naming none). */
interface Waiter {
  types: ReadonlySet<string> | undefined;
  /** A notification for it arrived since its last read began. */
  notified: boolean;
  /** Its subscription was stopped (returned by its consumer). */
  stopped: boolean;
  /** Ends the wait for a notification in progress, if any. */
  wake?: () => void;
  /** Ends the gathering wait in progress (gatherMs), if any: only stopping does. */
  interrupt?: () => void;
}

/**
 * The condition (with its `and`) that selects events of `types` — none of them when the list is empty — for both reads
 * of the outbox: the events_type_order index finds them in order.
 */
function ofTypes(types: readonly string[] | undefined) {
  if (!types) return sql``;
  if (types.length === 1) return sql`e.type = ${types[0]} and`;
  return sql`e.type = any(${[...types]}::text[]) and`;
}

/** An outbox row as both reads select it (`tx` is the xid8 transaction id rendered as text). */
interface EventRow {
  id: number;
  tx: string;
  type: string;
  entity: string;
  project: string | null;
  registry: string | null;
  author: string;
  payload: Record<string, unknown>;
  created_at: Date;
}

/**
 * The outbox rows of these events (`id`, `type`, `entity`, `project`, `registry`, `author`, `payload`) as a table for a
 * consumer's own statement: a consumer that turns frequent events into rows of its own (InferenceCallRecorder) reads
 * their payloads inside the database, in the statement that writes the rows, instead of receiving each payload and
 * sending it back as a parameter.
 */
export function eventRows(ids: readonly number[]): RawBuilder<unknown> {
  return sql`(select e.id, e.type, e.entity, e.project, e.registry, e.author, e.payload
    from ${sql.table(`${EVENTS_SCHEMA}.events`)} as e where e.id = any(${ids.map(String)}::bigint[]))`;
}

function toPlatformEvent(row: EventRow): PlatformEvent {
  return {
    id: Number(row.id),
    cursor: formatCursor(row.tx, row.id),
    type: row.type,
    entity: row.entity,
    project: row.project,
    registry: row.registry,
    author: row.author,
    payload: row.payload,
    createdAt: row.created_at,
  };
}
