import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../../test/support/platform.js';
import { connectRaw, requestHead, sleep } from '../../../test/support/raw-http.js';

/**
 * Graceful shutdown's leave phase (TRELLIS_SHUTDOWN_DELAY_MS): from the moment the close begins `/readyz` fails, so
 * load balancers stop choosing the process, while it goes on serving old and new connections for the delay, each
 * response closing its connection; only then does it stop listening and drain. Before, the listener closed at once
 * and requests on open keep-alive connections were answered 503, which a client behind a TCP balancer saw.
 */
describe('graceful close with a leave phase', () => {
  it('fails /readyz at once, serves old and new connections with Connection: close for the delay, then closes', async () => {
    const platform = await startTestPlatform({ workers: false, env: { TRELLIS_SHUTDOWN_DELAY_MS: '1500' } });
    const kept = await connectRaw(platform.url);
    kept.send(requestHead('GET', '/healthz', {}));
    expect((await kept.nextResponse()).headers.connection).toBe('keep-alive');
    expect((await fetch(`${platform.url}/readyz`)).status).toBe(200);

    const started = Date.now();
    const closed = platform.close().then(() => Date.now() - started);
    await sleep(100);

    const readiness = await fetch(`${platform.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toMatchObject({
      status: 'unavailable',
      failing: ['shutdown'],
      checks: expect.arrayContaining([{ check: 'shutdown', ok: false, reason: 'the process is shutting down', code: 'SHUTTING_DOWN' }]),
    });
    // A request on a connection opened before: served, and its connection closed after it.
    kept.send(requestHead('GET', '/healthz', {}));
    const onKept = await kept.nextResponse(3_000);
    expect(onKept.status).toBe(200);
    expect(onKept.headers.connection).toBe('close');
    expect(await Promise.race([kept.ended, sleep(1_000).then(() => 'still open')])).toBe('closed');
    // A new connection (a balancer that has not noticed yet): still accepted and served.
    const late = await connectRaw(platform.url);
    late.send(requestHead('GET', '/healthz', {}));
    const onLate = await late.nextResponse(3_000);
    expect(onLate.status).toBe(200);
    expect(onLate.headers.connection).toBe('close');

    const took = await Promise.race([closed, sleep(8_000).then(() => Infinity)]);
    expect(took).toBeGreaterThanOrEqual(1_500);
    expect(took).toBeLessThan(4_500);
  });
});
