import { createHmac } from 'node:crypto';
import type { WebhookCredentials } from '../secret/secret.service.js';
import { signingKey } from '../secret/signing-secret.js';

export const USER_AGENT = 'Trellis-Webhooks/0.1';

/**
 * The headers of a webhook POST. Receivers verify `X-Service-Signature` (hex HMAC-SHA256 of the exact body bytes
 * keyed with the webhook's secret as its text, the way GitHub-style receivers compute it), de-duplicate on the
 * delivery id (stable across retries and redeliveries) and reject stale timestamps. The same facts are also sent the
 * Standard Webhooks way (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC of
 * "id.timestamp.body">`), keyed as its libraries derive the key from the secret (signing-secret.ts).
 */
export function signedHeaders(
  body: string,
  credentials: WebhookCredentials,
  delivery: { id: string; eventType: string; timestamp?: number },
): Record<string, string> {
  const timestamp = String(delivery.timestamp ?? Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-delivery': delivery.id,
    'x-service-timestamp': timestamp,
    'x-service-event': delivery.eventType,
    'webhook-id': delivery.id,
    'webhook-timestamp': timestamp,
  };
  if (credentials.accessToken) headers.authorization = `Bearer ${credentials.accessToken.value}`;
  if (credentials.signingSecret) {
    const secret = credentials.signingSecret.value;
    headers['x-service-signature'] = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
    headers['webhook-signature'] = `v1,${createHmac('sha256', signingKey(secret)).update(`${delivery.id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
  }
  return headers;
}
