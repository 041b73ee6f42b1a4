import pg from 'pg';
import { parse, subscribe, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createHash } from 'node:crypto';
import type { Principal } from '../../../platform/auth/principal.js';
import { writeBatchIsolating } from '../../../platform/db/poisoned-records.js';
import { parseCursor, START_CURSOR, type PlatformEvent } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import { ageSeconds, automationEngineEvents, automationEngineLag } from '../../../platform/http/worker-metrics.js';
import { AUTOMATION_EVENT_TYPES, type AutomationEvent } from '../automations.schemas.js';
import type { SubscriptionContext } from '../events/subscription-context.js';
import type { AutomationsServices } from '../services.js';
import { DELIVERIES_CHANNEL, type AutomationRow, type AutomationsStore, type NewDelivery } from '../store.js';
import { automationKindsFor, eventVariables, matchesFilters, payloadOf } from './event-matcher.js';
import { changeMet, thresholdMet } from './metric-condition.js';

const CURSOR_NAME = 'automation-engine';
const MAX_BATCH = 200;
const LEADERSHIP_RETRY_MS = 1_000;

/**
 * The delivery id is derived from (automation, event), so whenever the same delivery is created again (after a
 * database crash lost a relaxed commit) it keeps the id receivers de-duplicate on. UUID layout, version 8.
 */
export function deliveryId(automationId: string, eventId: number): string {
  const hex = createHash('sha256').update(`trellis-delivery:${automationId}:${eventId}`).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The engine reads every team's events: it acts as the platform itself. */
export const ENGINE_PRINCIPAL: Principal = {
  userId: 'system:automation-engine',
  username: 'automation-engine',
  isAdmin: true,
  apiKeyId: 'internal',
  defaultEntity: '',
  teams: {},
  projectAdmin: [],
  registryAdmin: [],
};

const SUBSCRIPTION = parse(`
  subscription AutomationEngine($after: String!, $types: [String!]) {
    platformEvents(after: $after, types: $types) { id cursor type entity project registry author payload createdAt }
  }
`);

/**
 * Turns platform events into deliveries. It consumes exactly the `Subscription.platformEvents` resolver that
 * dashboards use (graphql `subscribe()` on this subgraph's schema), from its own stored cursor. Events that queue
 * up while a batch is handled form the next batch; each batch is one transaction that locks the cursor row,
 * inserts the deliveries and advances the cursor, so an event is turned into deliveries exactly once — across
 * restarts, and even if two engines ran at once (the second finds the cursor already past the event and skips
 * it; normally only the leader runs, see lead()).
 */
export class AutomationEngine implements BackgroundWorker {
  readonly name = 'automation-engine';
  /** One leader holds the lock anyway; the other processes need not wait for it. */
  readonly onePerPlatform = true;
  private iterator: AsyncIterator<ExecutionResult> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private cancelPause: (() => void) | undefined;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly services: AutomationsServices,
    private readonly logger: Logger,
  ) {}

  private get store(): AutomationsStore {
    return this.services.store;
  }

  start(): void {
    this.running = this.run();
  }

  /** Waits `ms`, or until stop(). */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.retryTimer = setTimeout(resolve, ms);
      this.cancelPause = resolve;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.cancelPause?.();
    await this.iterator?.return?.();
    await this.running;
  }

  /**
   * Only one engine in the whole deployment consumes at a time: a session advisory lock on a dedicated connection
   * (released by PostgreSQL when its holder dies). Others wait and retry; correctness does not depend on it (the
   * cursor lock already makes a second engine a no-op), it only spares the duplicate work.
   */
  private async lead(): Promise<pg.Client | undefined> {
    while (!this.stopped) {
      const client = new pg.Client({ connectionString: this.services.connectionString, application_name: 'trellis-automation-engine' });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ leader: boolean }>(`select pg_try_advisory_lock(hashtext('trellis:automation-engine')) as leader`);
        if (rows[0]?.leader) return client;
      } catch (error) {
        this.logger.warn({ err: error }, 'automation engine could not check leadership');
      }
      await client.end().catch(() => undefined);
      await this.pause(LEADERSHIP_RETRY_MS);
    }
    return undefined;
  }

  private async run(): Promise<void> {
    let delay = 100;
    let leadership: pg.Client | undefined;
    while (!this.stopped) {
      try {
        if (!leadership) {
          const acquired = await this.lead();
          if (!acquired) return;
          leadership = acquired;
          // Losing the connection loses the lock: stop consuming and compete again.
          acquired.once('end', () => {
            if (leadership === acquired) leadership = undefined;
            void this.iterator?.return?.();
          });
        }
        await this.consume();
        delay = 100;
      } catch (error) {
        if (this.stopped) return;
        this.logger.error({ err: error }, 'automation engine failed; resuming from its stored cursor');
        await this.pause(delay);
        delay = Math.min(delay * 2, 10_000);
      }
    }
    await leadership?.end().catch(() => undefined);
  }

  private async consume(): Promise<void> {
    const after = (await this.store.cursor(CURSOR_NAME)) ?? START_CURSOR;
    // Registered with the event log's retention before reading: no event it watches is deleted before it is handled.
    await this.reportPosition(after);
    const context: SubscriptionContext = {
      principal: ENGINE_PRINCIPAL,
      requestId: 'automation-engine',
      logger: this.logger as never,
      automations: this.services,
    };
    // Only the types an automation can watch: the others (a traced inference completion each, hundreds a second
    // under load) would cost a resolve, a payload and a planning step each for nothing.
    const result = await subscribe({ schema: this.schema, document: SUBSCRIPTION, variableValues: { after, types: AUTOMATION_EVENT_TYPES }, contextValue: context });
    if (!(Symbol.asyncIterator in result)) throw new Error(`platformEvents subscription failed: ${JSON.stringify(result.errors)}`);
    this.iterator = result[Symbol.asyncIterator]();
    if (this.stopped) return void (await this.iterator.return?.());

    // Events arriving while a batch is being handled queue up and go into the next batch (one transaction).
    const queue: PlatformEvent[] = [];
    let signal: (() => void) | undefined;
    let reading = true;
    const notify = () => {
      signal?.();
      signal = undefined;
    };
    const waitForSignal = () => new Promise<void>((resolve) => (signal = resolve));
    const processing = (async () => {
      while (reading || queue.length) {
        if (!queue.length) {
          await waitForSignal();
          continue;
        }
        const batch = queue.splice(0, MAX_BATCH);
        notify();
        // An event whose deliveries the database can never store is dead-lettered alone (and passed over), so it
        // cannot stop every automation; a failure of the database itself resumes from the stored cursor.
        const unhandled = await writeBatchIsolating(batch, {
          writer: 'automation-engine',
          logger: this.logger,
          write: (events) => this.handleBatch(events).then(() => undefined),
          describe: (event) => ({ event: event.id, type: event.type, entity: event.entity }),
          afterDeadLetter: (event) => this.passOver(event),
        });
        if (unhandled.length > 0) throw new Error(`${unhandled.length} platform events could not be handled`);
        await this.reportPosition(batch.at(-1)!.cursor);
        automationEngineEvents.inc(batch.length);
        automationEngineLag.set(ageSeconds(batch.at(-1)!.createdAt));
      }
    })();
    // A failure of the processing stops the reading (`reading` is false from then on) and ends the read in progress
    // through this one callback. Racing every read against a promise derived from `failed` instead left a reaction on
    // `failed`, pending for the engine's life, per event.
    let endRead: (() => void) | undefined;
    const failed = processing.catch((error) => {
      reading = false;
      endRead?.();
      // The reader may be waiting for room in a full queue, which nothing would drain any more.
      notify();
      void this.iterator?.return?.();
      throw error;
    });
    const iterator = this.iterator;
    const read = () =>
      new Promise<IteratorResult<ExecutionResult>>((resolve, reject) => {
        endRead = () => resolve({ done: true, value: undefined });
        iterator.next().then(resolve, reject);
      }).finally(() => {
        endRead = undefined;
      });
    try {
      while (!this.stopped && reading) {
        const next = await read();
        if (next.done) break;
        if (next.value.errors?.length) throw new Error(`platformEvents subscription error: ${next.value.errors[0]!.message}`);
        const raw = (next.value.data as { platformEvents: PlatformEvent & { id: string; createdAt: string } }).platformEvents;
        queue.push({ ...raw, id: Number(raw.id), createdAt: new Date(raw.createdAt) });
        notify();
        while (queue.length >= MAX_BATCH && !this.stopped && reading) await waitForSignal();
      }
    } finally {
      reading = false;
      notify();
      await failed;
    }
  }

  /** Tells the event log's retention where the engine got to (platform/events/consumer-positions.ts); a failure only keeps events longer. */
  private async reportPosition(cursor: string): Promise<void> {
    try {
      await this.services.events.reportPosition({ consumer: CURSOR_NAME, types: AUTOMATION_EVENT_TYPES, cursor });
    } catch (error) {
      this.logger.warn({ err: error }, 'could not report the automation engine position to the event log retention');
    }
  }

  /** One transaction for a run of events: lock the cursor, plan and insert their deliveries, advance the cursor. */
  async handleBatch(events: PlatformEvent[]): Promise<number> {
    return this.store.relaxedTransaction(async (store) => {
      const stored = parseCursor((await store.lockCursor(CURSOR_NAME)) ?? START_CURSOR)!;
      const fresh = events.filter((event) => {
        const position = parseCursor(event.cursor)!;
        return position.txId > stored.txId || (position.txId === stored.txId && position.id > stored.id);
      });
      if (!fresh.length) return 0;
      const watchers = new Map<string, Promise<AutomationRow[]>>();
      const deliveries: NewDelivery[] = [];
      for (const event of fresh) deliveries.push(...(await this.plan(store, event, watchers)));
      const created = await store.insertDeliveries(deliveries);
      if (created) await store.notify(DELIVERIES_CHANNEL);
      await store.setCursor(CURSOR_NAME, fresh.at(-1)!.cursor);
      return created;
    });
  }

  /** Moves the cursor past an event without acting on it (never backwards). */
  private passOver(event: PlatformEvent): Promise<void> {
    return this.store.relaxedTransaction(async (store) => {
      const stored = parseCursor((await store.lockCursor(CURSOR_NAME)) ?? START_CURSOR)!;
      const position = parseCursor(event.cursor)!;
      if (position.txId > stored.txId || (position.txId === stored.txId && position.id > stored.id)) await store.setCursor(CURSOR_NAME, event.cursor);
    });
  }

  private async plan(store: AutomationsStore, event: PlatformEvent, watchers: Map<string, Promise<AutomationRow[]>>): Promise<NewDelivery[]> {
    const scope = event.registry ? { kind: 'REGISTRY' as const, name: event.registry } : event.project ? { kind: 'PROJECT' as const, name: event.project } : null;
    if (!scope) return [];
    const payload = payloadOf(event);
    if (event.type === 'RUN_METRIC' && payload.metric && payload.run) {
      // The engine keeps its own copy of metric history for window conditions.
      await store.recordMetric(payload.run.id, payload.metric.name, payload.metric.step, payload.metric.value);
    }
    const kinds = automationKindsFor(event.type);
    const key = JSON.stringify([event.entity, scope.kind, scope.name, kinds]);
    let watching = watchers.get(key);
    if (!watching) {
      watching = store.watching(event.entity, scope.kind, scope.name, kinds);
      watchers.set(key, watching);
    }
    const deliveries: NewDelivery[] = [];
    for (const automation of await watching) {
      if (!matchesFilters(automation, event)) continue;
      if (!(await this.metricConditionMet(store, automation.event_filter as AutomationEvent, automation.id, payload))) continue;
      deliveries.push({
        id: deliveryId(automation.id, event.id),
        automation_id: automation.id,
        webhook_id: automation.webhook_id,
        team: automation.team,
        event_id: event.id,
        event_type: automation.event_type,
        payload_template: automation.payload_template,
        variables: eventVariables(automation, event) as Record<string, unknown>,
        attempt_limit: this.services.config.maxAttempts,
      });
    }
    return deliveries;
  }

  private async metricConditionMet(
    store: AutomationsStore,
    filter: AutomationEvent,
    automationId: string,
    payload: ReturnType<typeof payloadOf>,
  ): Promise<boolean> {
    if (filter.type !== 'RUN_METRIC' && filter.type !== 'RUN_METRIC_CHANGE') return true;
    const run = payload.run!;
    const window = filter.window ?? (filter.type === 'RUN_METRIC' ? 5 : 10);
    const current = await store.recentMetricValues(run.id, filter.metricName!, window);
    const met =
      filter.type === 'RUN_METRIC'
        ? thresholdMet(filter, current)
        : changeMet(filter, current, await store.recentMetricValues(run.id, filter.metricName!, filter.priorWindow ?? 50, window));
    // At most once per run per 24 h.
    return met && (await store.claimMetricFiring(automationId, run.id));
  }
}
