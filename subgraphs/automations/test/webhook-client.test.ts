import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backoffMs, judge, nextDelayMs } from '../delivery/retry-policy.js';
import { WebhookClient } from '../delivery/webhook-client.js';
import { Receiver } from './receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await new Receiver().start();
});
afterAll(async () => {
  await receiver?.close();
});

describe('webhook client', () => {
  it('refuses a host name that resolves to a refused address (checked after DNS), unless the allow-list admits it', async () => {
    const port = new URL(receiver.url()).port;
    const guarded = new WebhookClient({ allowCidrs: [], timeoutMs: 2000, bodyLimit: 100 });
    const refused = await guarded.post(`http://localhost:${port}/dns`, { 'content-type': 'application/json' }, '{}');
    expect(refused).toMatchObject({ kind: 'error', refused: true });
    expect(receiver.requests.filter((r) => r.path === '/dns')).toHaveLength(0);
    await guarded.close();

    const allowed = new WebhookClient({ allowCidrs: ['127.0.0.0/8'], timeoutMs: 2000, bodyLimit: 100 });
    const sent = await allowed.post(`http://localhost:${port}/dns`, { 'content-type': 'application/json' }, '{}');
    expect(sent).toMatchObject({ kind: 'response', response: { status: 200 } });
    expect(receiver.requests.filter((r) => r.path === '/dns')).toHaveLength(1);
    await allowed.close();
  });

  it('reads Retry-After (seconds) and truncates long response bodies', async () => {
    receiver.responder = () => ({ status: 429, headers: { 'retry-after': '7' }, body: 'x'.repeat(5000) });
    const client = new WebhookClient({ allowCidrs: ['127.0.0.0/8'], timeoutMs: 2000, bodyLimit: 100 });
    const outcome = await client.post(receiver.url('/busy'), {}, '{}');
    await client.close();
    expect(outcome.kind).toBe('response');
    if (outcome.kind !== 'response') return;
    expect(outcome.response.retryAfterMs).toBe(7000);
    expect(outcome.response.body).toHaveLength(101);
    const verdict = judge(outcome);
    expect(verdict).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
    expect(nextDelayMs(1, verdict as { retryAfterMs?: number }, 50, 60_000)).toBe(7000);
    expect(nextDelayMs(1, verdict as { retryAfterMs?: number }, 50, 5_000)).toBe(5000);
  });

  it('backs off exponentially with jitter between half and the full delay, capped', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(4, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffMs(20, 1000, 60_000, () => 1)).toBe(60_000);
  });
});
