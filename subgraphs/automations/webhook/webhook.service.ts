import { randomUUID } from 'node:crypto';
import { BadRequestError, ConflictError, NotFoundError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { CreateWebhookSchema, type CreateWebhook } from '../automations.schemas.js';
import type { WebhookClient } from '../delivery/webhook-client.js';
import { signedHeaders } from '../delivery/signed-request.js';
import { redact, redactorFor, type SecretService } from '../secret/secret.service.js';
import type { AutomationsStore, WebhookRow } from '../store.js';

export interface WebhookTestResult {
  ok: boolean;
  status: number | null;
  headers: Record<string, string>;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/** Webhooks: an endpoint plus at most one access token and one signing secret, all team-owned. */
export class WebhookService {
  constructor(
    private readonly store: AutomationsStore,
    private readonly secrets: SecretService,
    private readonly client: WebhookClient,
  ) {}

  create(input: CreateWebhook): Promise<WebhookRow> {
    validateOrThrow(CreateWebhookSchema, input, 'input');
    try {
      new URL(input.endpointUrl);
    } catch {
      throw new BadRequestError(`"${input.endpointUrl}" is not a valid URL`, { param: 'endpointUrl' });
    }
    return this.store.transaction(async (store) => {
      const secretId = async (name: string | null | undefined) => {
        if (!name) return null;
        const secret = await store.secret(input.team, name);
        if (!secret) throw new NotFoundError(`Secret "${name}" does not exist in team "${input.team}"`);
        return secret.id;
      };
      const row = await store.insertWebhook({
        team: input.team,
        name: input.name,
        endpointUrl: input.endpointUrl,
        accessTokenSecretId: await secretId(input.accessTokenSecret),
        signingSecretId: await secretId(input.signingSecret),
      });
      if (!row) throw new ConflictError(`Webhook "${input.name}" already exists in team "${input.team}"`);
      return row;
    });
  }

  async get(id: string): Promise<WebhookRow | undefined> {
    return isUuid(id) ? this.store.webhook(id) : undefined;
  }

  list(team: string): Promise<WebhookRow[]> {
    return this.store.webhooksOf(team);
  }

  async delete(webhook: WebhookRow): Promise<boolean> {
    return this.store.transaction(async (store) => {
      const users = await store.automationsUsingWebhook(webhook.id);
      if (users.length) throw new ConflictError(`Webhook "${webhook.name}" is used by automation(s) ${users.map((a) => `"${a.name}"`).join(', ')}`);
      await store.deleteWebhook(webhook.id);
      return true;
    });
  }

  /** Re-enables a webhook that a 410 response disabled. */
  async enable(webhook: WebhookRow): Promise<WebhookRow> {
    await this.store.setWebhookDisabled(webhook.id, null);
    return (await this.store.webhook(webhook.id))!;
  }

  async secretName(id: string | null): Promise<string | null> {
    return id ? ((await this.store.secretById(id))?.name ?? null) : null;
  }

  /**
   * Sends `payload` (default `{}`) with the webhook's real credentials and reports what came back. Nothing is
   * stored; the response is redacted like a delivery record.
   */
  async test(webhook: WebhookRow, payload: string | null): Promise<WebhookTestResult> {
    const body = payload ?? '{}';
    const credentials = await this.secrets.credentialsFor(webhook);
    const headers = signedHeaders(body, credentials, { id: randomUUID(), eventType: 'TEST' });
    const outcome = await this.client.post(webhook.endpoint_url, headers, body, redactorFor(credentials));
    if (outcome.kind === 'error') {
      return { ok: false, status: null, headers: {}, body: null, error: redact(outcome.error, credentials), durationMs: outcome.durationMs };
    }
    const { response } = outcome;
    const redactedHeaders = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, redact(value, credentials)!]));
    return {
      ok: response.status >= 200 && response.status < 300,
      status: response.status,
      headers: redactedHeaders,
      body: redact(response.body, credentials),
      error: null,
      durationMs: outcome.durationMs,
    };
  }
}

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
