import { NotFoundError } from '../../../platform/errors.js';
import { parseTemplate, renderTemplate, ACCESS_TOKEN_VARIABLE, type EventVariables } from '../automation/payload-template.js';
import { DELIVERIES_CHANNEL, type AttemptRow, type AutomationsStore, type DeliveryFilter, type DeliveryPosition, type DeliveryRow } from '../store.js';

const REDACTED = '[redacted]';

/** Delivery history (status, attempts, payload with secrets redacted) and manual redelivery. */
export class DeliveryService {
  constructor(
    private readonly store: AutomationsStore,
    private readonly attemptBudget: number,
  ) {}

  get(id: string): Promise<DeliveryRow | undefined> {
    return /^[0-9a-f-]{36}$/i.test(id) ? this.store.delivery(id) : Promise.resolve(undefined);
  }

  /** Deliveries newest first (of one automation, of a team, of one status), after a keyset position. */
  page(filter: DeliveryFilter, limit: number, before?: DeliveryPosition | null): Promise<(DeliveryRow & { created_us: string })[]> {
    return this.store.deliveriesPage(filter, limit, before);
  }

  attempts(deliveryId: string): Promise<AttemptRow[]> {
    return this.store.attemptsOf(deliveryId);
  }

  /** The body as sent, except that every secret appears as "[redacted]". */
  async displayPayload(delivery: DeliveryRow): Promise<string> {
    const webhook = await this.store.webhook(delivery.webhook_id);
    const secrets: Record<string, string> = {};
    if (webhook?.access_token_secret_id) {
      secrets[ACCESS_TOKEN_VARIABLE] = REDACTED;
      const name = (await this.store.secretById(webhook.access_token_secret_id))?.name;
      if (name) secrets[name] = REDACTED;
    }
    if (webhook?.signing_secret_id) {
      const name = (await this.store.secretById(webhook.signing_secret_id))?.name;
      if (name) secrets[name] = REDACTED;
    }
    return renderTemplate(parseTemplate(delivery.payload_template, new Set(Object.keys(secrets))), delivery.variables as EventVariables, secrets);
  }

  /** Sends a finished delivery again, with the same delivery id (receivers de-duplicate on it) and fresh retries. */
  async redeliver(delivery: DeliveryRow): Promise<DeliveryRow> {
    return this.store.transaction(async (store) => {
      const row = await store.requeue(delivery.id, this.attemptBudget);
      if (!row) throw new NotFoundError(`Delivery ${delivery.id} is still pending; it will be sent without a redelivery`);
      await store.notify(DELIVERIES_CHANNEL);
      return row;
    });
  }
}
