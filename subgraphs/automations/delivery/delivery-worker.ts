import type { NotificationListener } from '../../../platform/events/index.js';
import { writeBatchIsolating } from '../../../platform/db/poisoned-records.js';
import type { Logger } from '../../../platform/logger.js';
import { toStorableText } from '../../../platform/storable-input.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import { webhookDeliveryAttempts } from '../../../platform/http/worker-metrics.js';
import { parseTemplate, renderTemplate, type EventVariables, type ParsedTemplate } from '../automation/payload-template.js';
import type { AutomationsConfig } from '../config.js';
import { credentialVariables, redact, redactorFor, type SecretService, type WebhookCredentials } from '../secret/secret.service.js';
import {
  DELIVERIES_CHANNEL,
  DELIVERY_UPDATES_CHANNEL,
  type AttemptOutcome,
  type AttemptRow,
  type AutomationsStore,
  type DeliveryRow,
  type WebhookRow,
} from '../store.js';
import { judge, nextDelayMs } from './retry-policy.js';
import { signedHeaders } from './signed-request.js';
import type { WebhookClient } from './webhook-client.js';

/** Longest sleep without a wake-up: a safety net, not the delivery mechanism (NOTIFY and due times are). */
const MAX_IDLE_MS = 30_000;

/**
 * Sends due deliveries. Any number of workers, in any number of processes, share the deliveries table: each
 * leases rows with `FOR UPDATE SKIP LOCKED` (store.claimDue), sends up to `concurrency` at once, and records each
 * attempt. It wakes on NOTIFY (new or redelivered deliveries), when a retry falls due, or when a lease expires.
 * `stop()` stops claiming and waits for the requests in flight (at most the request timeout).
 */
export class DeliveryWorker implements BackgroundWorker {
  readonly name = 'delivery-worker';
  /** Delivery concurrency is the platform's, not each process's. */
  readonly onePerPlatform = true;
  private stopped = false;
  private generation = 0;
  private wakeUp: (() => void) | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly store: AutomationsStore,
    private readonly secrets: SecretService,
    private readonly client: WebhookClient,
    private readonly listener: NotificationListener,
    private readonly config: AutomationsConfig,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.listener.listen(DELIVERIES_CHANNEL, () => this.wake());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unlisten?.();
    this.wake();
    await this.loop;
    await Promise.all(this.inFlight);
    while (this.flushing) await this.flushing;
  }

  private wake(): void {
    this.generation += 1;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const seen = this.generation;
      let sleepMs = MAX_IDLE_MS;
      try {
        const free = this.config.concurrency - this.inFlight.size;
        if (free > 0) {
          // The lease outlives one attempt (request timeout) with a margin; then a crashed worker's rows are due again.
          const claimed = await this.store.claimDue(free, this.config.timeoutMs + Math.min(5_000, this.config.timeoutMs));
          this.dispatch(claimed);
          if (claimed.length === free) continue;
          const due = await this.store.nextDueAt();
          if (due) sleepMs = Math.max(0, Math.min(MAX_IDLE_MS, due.getTime() - Date.now() + 5));
        }
      } catch (error) {
        if (this.stopped) return;
        this.logger.error({ err: error }, 'delivery worker could not claim deliveries');
        sleepMs = 1_000;
      }
      if (sleepMs > 0 && this.generation === seen && !this.stopped) await this.sleep(sleepMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    }).then(() => {
      this.wakeUp = undefined;
    });
  }

  private dispatch(deliveries: DeliveryRow[]): void {
    // Deliveries claimed together often share a webhook: load it and open its secrets once.
    const webhooks = new Map<string, Promise<{ webhook: WebhookRow; credentials: WebhookCredentials } | null>>();
    for (const delivery of deliveries) {
      let target = webhooks.get(delivery.webhook_id);
      if (!target) {
        target = this.store.webhook(delivery.webhook_id).then(async (webhook) => (webhook ? { webhook, credentials: await this.secrets.credentialsFor(webhook) } : null));
        webhooks.set(delivery.webhook_id, target);
      }
      const task: Promise<void> = this.attempt(delivery, target)
        .catch((error) => this.logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt could not be recorded'))
        .finally(() => {
          this.inFlight.delete(task);
          this.wake();
        });
      this.inFlight.add(task);
    }
  }

  private async attempt(delivery: DeliveryRow, target: Promise<{ webhook: WebhookRow; credentials: WebhookCredentials } | null>): Promise<void> {
    const startedAt = new Date();
    const resolved = await target;
    if (!resolved) return this.record(delivery, startedAt, { kind: 'failed', reason: 'webhook no longer exists' }, null, null, {});
    const { webhook, credentials } = resolved;
    if (webhook.disabled_at) {
      return this.record(delivery, startedAt, { kind: 'failed', reason: `webhook is disabled (${webhook.disabled_reason ?? 'by an admin'})` }, null, null, credentials);
    }
    const secretValues = credentialVariables(credentials);
    const body = renderTemplate(this.parsed(delivery.payload_template, Object.keys(secretValues)), delivery.variables as EventVariables, secretValues);
    const headers = signedHeaders(body, credentials, { id: delivery.id, eventType: delivery.event_type });
    const outcome = await this.client.post(webhook.endpoint_url, headers, body, redactorFor(credentials));
    const verdict = judge(outcome);
    const status = outcome.kind === 'response' ? outcome.response.status : null;
    const responseBody = outcome.kind === 'response' ? outcome.response.body : null;
    await this.record(delivery, startedAt, verdict, status, responseBody, credentials);
  }

  /**
   * Queues the outcome of one attempt; outcomes are written in batches (one transaction per batch), so a busy
   * worker does not pay a commit per delivery.
   */
  private record(
    delivery: DeliveryRow,
    startedAt: Date,
    verdict: ReturnType<typeof judge>,
    status: number | null,
    responseBody: string | null,
    credentials: WebhookCredentials,
  ): Promise<void> {
    const attempt = delivery.attempts;
    // The receiver's answer is text from elsewhere: stored with U+FFFD in place of what PostgreSQL cannot hold.
    const error = verdict.kind === 'succeeded' ? null : toStorableText(redact(verdict.reason, credentials));
    const exhausted = attempt >= delivery.attempt_limit;
    const retry = verdict.kind === 'retry' && !exhausted;
    const outcome: AttemptOutcome = {
      id: delivery.id,
      attempt,
      status: verdict.kind === 'succeeded' ? 'SUCCEEDED' : retry ? 'PENDING' : 'FAILED',
      last_status: status,
      last_error: error,
      next_attempt_at: retry
        ? new Date(Date.now() + nextDelayMs(attempt, verdict as { retryAfterMs?: number }, this.config.retryBaseMs, this.config.retryMaxMs)).toISOString()
        : null,
    };
    const row: AttemptRow = {
      delivery_id: delivery.id,
      attempt,
      started_at: startedAt,
      finished_at: new Date(),
      response_status: status,
      response_body: toStorableText(redact(responseBody, credentials)),
      error,
    };
    webhookDeliveryAttempts.inc({ outcome: outcome.status === 'SUCCEEDED' ? 'succeeded' : retry ? 'retrying' : 'failed' });
    // The slot is free as soon as the request is done; the outcome is written with the next batch.
    this.pending.push({ outcome, row, disableWebhook: verdict.kind === 'failed' && verdict.disableWebhook === true });
    this.flushSoon();
    return Promise.resolve();
  }

  private readonly pending: PendingRecord[] = [];
  private readonly templates = new Map<string, ParsedTemplate>();

  /** Parsed templates, per template text and secret names (a few automations send most deliveries). */
  private parsed(template: string, secretNames: string[]): ParsedTemplate {
    const key = `${secretNames.join(',')}\u0000${template}`;
    let parsed = this.templates.get(key);
    if (!parsed) {
      if (this.templates.size >= 1000) this.templates.clear();
      parsed = parseTemplate(template, new Set(secretNames));
      this.templates.set(key, parsed);
    }
    return parsed;
  }
  private flushing: Promise<void> | undefined;

  /** One transaction: the attempts, the deliveries' new states, webhooks a 410 disabled, and the notifications. */
  private recordAttempts(batch: PendingRecord[]): Promise<void> {
    return this.store.relaxedTransaction(async (store) => {
      await store.insertAttempts(batch.map((entry) => entry.row));
      const updated = await store.finishAttempts(batch.map((entry) => entry.outcome));
      const mine = new Set(updated.map((row) => row.id));
      for (const entry of batch) {
        if (entry.disableWebhook && mine.has(entry.outcome.id)) await store.setWebhookDisabled(updated.find((row) => row.id === entry.outcome.id)!.webhook_id, 'receiver answered 410 Gone');
      }
      await store.notifyEach(DELIVERY_UPDATES_CHANNEL, [...mine]);
    });
  }

  private flushSoon(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      // Let the other attempts that finished in this turn of the event loop join the batch.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.pending.length) {
        const batch = this.pending.splice(0, 500);
        // An attempt left unrecorded is sent again when its lease expires (same ids): at-least-once holds. One
        // the database can never store is dead-lettered alone rather than failing the attempts recorded with it.
        await writeBatchIsolating(batch, {
          writer: 'delivery-attempts',
          logger: this.logger,
          write: (entries) => this.recordAttempts(entries),
          describe: (entry) => ({ deliveryId: entry.outcome.id, attempt: entry.outcome.attempt }),
        });
        // The worker woke when the requests ended, before these outcomes were stored, and saw the deliveries still
        // leased: it sleeps until the leases end (request timeout + margin). Now their next-attempt times (backoff,
        // Retry-After) are committed, so it must look again and sleep only until the earliest of them.
        this.wake();
      }
      this.flushing = undefined;
    })();
  }
}

interface PendingRecord {
  outcome: AttemptOutcome;
  row: AttemptRow;
  disableWebhook: boolean;
}
