import { trackPool } from '../../platform/db/connection-budget.js';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateEvents, NotificationListener, PlatformEventStream } from '../../platform/events/index.js';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import { UnavailableGraph } from '../../platform/graphql/platform-graph.js';
import { AutomationScopes } from './automation/automation-scope.js';
import { AutomationResolver } from './automation/automation.resolver.js';
import { AutomationService } from './automation/automation.service.js';
import { loadAutomationsConfig } from './config.js';
import type { AutomationsDatabase } from './db/database.js';
import { automationsMigrations } from './db/migrations/index.js';
import { DeliveryResolver } from './delivery/delivery.resolver.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { WebhookClient } from './delivery/webhook-client.js';
import { AutomationEngine } from './engine/automation-engine.js';
import { RecentEventsResolver } from './events/recent-events.resolver.js';
import { SubscriptionResolver } from './events/subscription.resolver.js';
import type { SubscriptionContext } from './events/subscription-context.js';
import { SecretBox } from './secret/secret-box.js';
import { SecretResolver } from './secret/secret.resolver.js';
import { SecretService } from './secret/secret.service.js';
import type { AutomationsServices } from './services.js';
import { AutomationsStore } from './store.js';
import { AutomationsTeamResolver, Team } from './team/team.resolver.js';
import { WebhookResolver } from './webhook/webhook.resolver.js';
import { WebhookService } from './webhook/webhook.service.js';

/** Family D: team secrets, webhooks, automations over platform events, and signed deliveries. */
export const automationsSubgraph = defineSubgraph<AutomationsServices>({
  name: 'automations',
  migrations: automationsMigrations,
  resolvers: [AutomationsTeamResolver, SecretResolver, WebhookResolver, AutomationResolver, DeliveryResolver, SubscriptionResolver, RecentEventsResolver],
  orphanedTypes: [Team],
  createServices: async ({ store, db, config: platformConfig, logger, graph }) => {
    await migrateEvents(db.root);
    const config = loadAutomationsConfig(platformConfig);
    // The engine's and workers' bookkeeping commits without waiting for the WAL flush (see relaxedTransaction).
    const relaxedPool = new pg.Pool({
      connectionString: String(db.pool.options.connectionString),
      max: Math.max(4, Math.ceil(platformConfig.databasePoolSize / 2)),
      application_name: 'trellis-automations-workers',
      options: '-c synchronous_commit=off',
    });
    relaxedPool.on('error', () => undefined);
    trackPool(relaxedPool);
    const relaxed = new Kysely<AutomationsDatabase>({ dialect: new PostgresDialect({ pool: relaxedPool }) }).withSchema('automations');
    const automationsStore = new AutomationsStore(store as Kysely<AutomationsDatabase>, relaxed);
    const secrets = new SecretService(automationsStore, await SecretBox.load(config.secretKey, config.dataDir));
    const client = new WebhookClient({ allowCidrs: config.allowCidrs, timeoutMs: config.timeoutMs, bodyLimit: config.responseBodyLimit });
    const connectionString = String(db.pool.options.connectionString);
    return {
      config,
      store: automationsStore,
      secrets,
      webhooks: new WebhookService(automationsStore, secrets, client),
      // An automation's project or registry is asked of its owner through the graph, as the caller.
      automations: new AutomationService(automationsStore, new AutomationScopes(graph ?? new UnavailableGraph())),
      deliveries: new DeliveryService(automationsStore, config.maxAttempts),
      events: new PlatformEventStream(db.root, connectionString, logger),
      listener: new NotificationListener(connectionString, logger),
      client,
      connectionString,
      close: () => relaxed.destroy(),
    };
  },
  // The engine turns events into deliveries; delivery workers send them. Both can run in several processes.
  workers: (services, { schema, logger }) => [
    new AutomationEngine(schema, services, logger.child({ worker: 'automation-engine' })),
    new DeliveryWorker(services.store, services.secrets, services.client, services.listener, services.config, logger.child({ worker: 'delivery' })),
  ],
  // Its subscription sources read the services from the context (events/subscription-context.ts), wherever they run.
  subscriptionContext: (services, base): SubscriptionContext => ({ ...base, automations: services }),
  onStop: async (services) => {
    await services.events.close();
    await services.listener.close();
    await services.client.close();
    await services.close();
  },
  references: () => ({ Team: passThroughReference }),
});
