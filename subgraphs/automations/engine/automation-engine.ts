import { parse, subscribe, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { uuidv7 } from 'uuidv7';
import type { Principal } from '../../../platform/auth/principal.js';
import { parseCursor, START_CURSOR, type PlatformEvent } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import type { AutomationEvent } from '../automations.schemas.js';
import type { SubscriptionContext } from '../events/subscription-context.js';
import type { AutomationsServices } from '../services.js';
import { DELIVERIES_CHANNEL, type AutomationsStore } from '../store.js';
import { automationKindsFor, eventVariables, matchesFilters, payloadOf } from './event-matcher.js';
import { changeMet, thresholdMet } from './metric-condition.js';

const CURSOR_NAME = 'automation-engine';

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
  subscription AutomationEngine($after: String!) {
    platformEvents(after: $after) { id cursor type entity project registry author payload createdAt }
  }
`);

/**
 * Turns platform events into deliveries. It consumes exactly the `Subscription.platformEvents` resolver that
 * dashboards use (graphql `subscribe()` on this subgraph's schema), from its own stored cursor. Each event is
 * handled in one transaction that locks the cursor row, inserts the deliveries and advances the cursor, so an
 * event is turned into deliveries exactly once — across restarts, and with engines running in several processes
 * (the second one finds the cursor already past the event and skips it).
 */
export class AutomationEngine implements BackgroundWorker {
  readonly name = 'automation-engine';
  private iterator: AsyncIterator<ExecutionResult> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;

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

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.iterator?.return?.();
    await this.running;
  }

  private async run(): Promise<void> {
    let delay = 100;
    while (!this.stopped) {
      try {
        await this.consume();
        delay = 100;
      } catch (error) {
        if (this.stopped) return;
        this.logger.error({ err: error }, 'automation engine failed; resuming from its stored cursor');
        await new Promise<void>((resolve) => {
          this.retryTimer = setTimeout(resolve, delay);
        });
        delay = Math.min(delay * 2, 10_000);
      }
    }
  }

  private async consume(): Promise<void> {
    const after = (await this.store.cursor(CURSOR_NAME)) ?? START_CURSOR;
    const context: SubscriptionContext = {
      principal: ENGINE_PRINCIPAL,
      requestId: 'automation-engine',
      logger: this.logger as never,
      automations: this.services,
    };
    const result = await subscribe({ schema: this.schema, document: SUBSCRIPTION, variableValues: { after }, contextValue: context });
    if (!(Symbol.asyncIterator in result)) throw new Error(`platformEvents subscription failed: ${JSON.stringify(result.errors)}`);
    this.iterator = result[Symbol.asyncIterator]();
    if (this.stopped) return void (await this.iterator.return?.());
    while (!this.stopped) {
      const next = await this.iterator.next();
      if (next.done) return;
      if (next.value.errors?.length) throw new Error(`platformEvents subscription error: ${next.value.errors[0]!.message}`);
      const raw = (next.value.data as { platformEvents: PlatformEvent & { id: string; createdAt: string } }).platformEvents;
      await this.handle({ ...raw, id: Number(raw.id), createdAt: new Date(raw.createdAt) });
    }
  }

  /** Creates the deliveries one event calls for (exactly once, see the class comment). */
  async handle(event: PlatformEvent): Promise<number> {
    return this.store.transaction(async (store) => {
      const stored = parseCursor((await store.lockCursor(CURSOR_NAME)) ?? START_CURSOR)!;
      const position = parseCursor(event.cursor)!;
      if (position.txId < stored.txId || (position.txId === stored.txId && position.id <= stored.id)) return 0;
      let created = 0;
      for (const delivery of await this.plan(store, event)) {
        if (await store.insertDelivery(delivery)) created += 1;
      }
      if (created) await store.notify(DELIVERIES_CHANNEL);
      await store.setCursor(CURSOR_NAME, event.cursor);
      return created;
    });
  }

  private async plan(store: AutomationsStore, event: PlatformEvent) {
    const scope = event.registry ? { kind: 'REGISTRY' as const, name: event.registry } : event.project ? { kind: 'PROJECT' as const, name: event.project } : null;
    if (!scope) return [];
    const payload = payloadOf(event);
    if (event.type === 'RUN_METRIC' && payload.metric && payload.run) {
      // The engine keeps its own copy of metric history for window conditions.
      await store.recordMetric(payload.run.id, payload.metric.name, payload.metric.step, payload.metric.value);
    }
    const automations = await store.watching(event.entity, scope.kind, scope.name, automationKindsFor(event.type));
    const deliveries = [];
    for (const automation of automations) {
      if (!matchesFilters(automation, event)) continue;
      if (!(await this.metricConditionMet(store, automation.event_filter as AutomationEvent, automation.id, payload))) continue;
      const webhook = await store.webhook(automation.webhook_id);
      if (!webhook || webhook.disabled_at) continue;
      deliveries.push({
        id: uuidv7(),
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
