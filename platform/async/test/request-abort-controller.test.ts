import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { RequestAbortController } from '../request-abort-controller.js';

describe('RequestAbortController', () => {
  it('aborts once: listeners and onabort run once, with an AbortError reason by default', () => {
    const controller = new RequestAbortController();
    const seen: string[] = [];
    controller.signal.addEventListener('abort', (event) => seen.push(`listener ${event.type}`), { once: true });
    controller.signal.onabort = (event) => seen.push(`onabort ${event.type}`);
    expect(controller.signal.aborted).toBe(false);
    expect(() => controller.signal.throwIfAborted()).not.toThrow();

    controller.abort();
    controller.abort(new Error('again'));

    expect(seen).toEqual(['onabort abort', 'listener abort']);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBeInstanceOf(DOMException);
    expect((controller.signal.reason as DOMException).name).toBe('AbortError');
    expect(() => controller.signal.throwIfAborted()).toThrow(controller.signal.reason as DOMException);
  });

  it('keeps the reason it is aborted with, and a removed listener is not called', () => {
    const controller = new RequestAbortController();
    let calls = 0;
    const listener = () => calls++;
    controller.signal.addEventListener('abort', listener);
    controller.signal.removeEventListener('abort', listener);
    const reason = new Error('client went away');
    controller.abort(reason);
    expect(controller.signal.reason).toBe(reason);
    expect(calls).toBe(0);
  });

  it("is taken as an abort signal by Node's fetch and timers", async () => {
    const server = http.createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const forFetch = new RequestAbortController();
      const fetching = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { signal: forFetch.signal });
      setTimeout(() => forFetch.abort(), 20);
      await expect(fetching).rejects.toMatchObject({ name: 'AbortError' });

      const forTimer = new RequestAbortController();
      const waiting = sleep(10_000, undefined, { signal: forTimer.signal });
      forTimer.abort(new Error('stop'));
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
