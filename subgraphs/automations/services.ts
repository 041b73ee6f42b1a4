import type { NotificationListener, PlatformEventStream } from '../../platform/events/index.js';
import type { AutomationService } from './automation/automation.service.js';
import type { AutomationsConfig } from './config.js';
import type { DeliveryService } from './delivery/delivery.service.js';
import type { WebhookClient } from './delivery/webhook-client.js';
import type { SecretService } from './secret/secret.service.js';
import type { AutomationsStore } from './store.js';
import type { WebhookService } from './webhook/webhook.service.js';

/** What the automations subgraph's resolvers and workers are constructed with. */
export interface AutomationsServices {
  config: AutomationsConfig;
  store: AutomationsStore;
  secrets: SecretService;
  webhooks: WebhookService;
  automations: AutomationService;
  deliveries: DeliveryService;
  /** The platform event outbox, read in commit-safe order and followed live. */
  events: PlatformEventStream;
  /** This process's LISTEN connection (delivery wake-ups, delivery updates). */
  listener: NotificationListener;
  client: WebhookClient;
  /** The database, for components that need a dedicated connection (engine leadership). */
  connectionString: string;
  /** Releases the subgraph's own connections. */
  close(): Promise<void>;
}
