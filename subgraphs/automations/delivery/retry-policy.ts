import type { WebhookOutcome } from './webhook-client.js';

/** What to do after one attempt. */
export type AttemptVerdict =
  | { kind: 'succeeded' }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'failed'; reason: string; disableWebhook?: boolean };

/**
 * 2xx succeeds. Network errors, timeouts, 408, 429 and 5xx are retried (429/503 honour Retry-After). 410 Gone
 * fails and disables the webhook. Redirects are not followed and fail, as does any other 4xx. A refused address
 * (SSRF guard) fails without retry: retrying cannot make it allowed.
 */
export function judge(outcome: WebhookOutcome): AttemptVerdict {
  if (outcome.kind === 'error') {
    if (outcome.refused) return { kind: 'failed', reason: outcome.error };
    return { kind: 'retry', reason: outcome.error };
  }
  const { status, headers, retryAfterMs } = outcome.response;
  if (status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'failed', reason: 'receiver answered 410 Gone; webhook disabled', disableWebhook: true };
  if (status >= 300 && status < 400) {
    return { kind: 'failed', reason: `receiver answered ${status} (redirect to ${headers.location ?? 'nowhere'}); redirects are not followed` };
  }
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', reason: `receiver answered ${status}`, retryAfterMs };
  return { kind: 'failed', reason: `receiver answered ${status}` };
}

/** Exponential backoff with jitter: base·2^(attempt−1), capped, scaled by a random factor in [0.5, 1]. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random() * 0.5));
}

/** The delay before the next attempt: Retry-After when the receiver asked for it (capped), else backoff. */
export function nextDelayMs(attempt: number, verdict: { retryAfterMs?: number }, baseMs: number, maxMs: number): number {
  if (verdict.retryAfterMs !== undefined) return Math.min(maxMs, Math.max(verdict.retryAfterMs, 0));
  return backoffMs(attempt, baseMs, maxMs);
}
