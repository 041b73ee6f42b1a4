const abortWith = Symbol('abortWith');

/**
 * The abort signal of one request (`GraphQLContext.signal`): an AbortSignal to every reader — `aborted`, `reason`,
 * `throwIfAborted()`, `onabort` and 'abort' listeners — made on Node's EventTarget directly. Why not Node's own
 * AbortController: under Node 20 each AbortSignal gets a hidden class (map) of its own, and a signal made per
 * request kept ≈ 0.8 KB of each finished request reachable for V8's young-generation collector, which promoted it
 * to the old generation (the probes of subgraphs/inference/test, docs/benchmarks-history.md, inference, "2026-11-27,
 * second session"). One
 * difference: it is not `instanceof AbortSignal` (Node's and undici's APIs that take a signal check its shape).
 */
class RequestAbortSignal extends EventTarget implements AbortSignal {
  aborted = false;
  reason: any = undefined;
  onabort: ((this: AbortSignal, event: Event) => any) | null = null;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  [abortWith](reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const event = new Event('abort');
    this.onabort?.call(this, event);
    this.dispatchEvent(event);
  }
}

/** An AbortController for one request, whose signal is a RequestAbortSignal. */
export class RequestAbortController {
  readonly signal: AbortSignal = new RequestAbortSignal();

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    (this.signal as RequestAbortSignal)[abortWith](reason);
  }
}
