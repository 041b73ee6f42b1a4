import type { Dispatcher, Pool } from 'undici';

export interface PostRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends a POST on `pool` through undici's `dispatch` with `handler`, cancelled by `signal`: a signal aborted
 * before the request starts aborts it there, a later abort goes through undici's controller (the handler's
 * onResponseError then runs), and the listener on `signal` is removed once the request ended either way. Throws
 * when `signal` is already aborted or undici refuses the request.
 */
export function dispatchPost(pool: Pool, request: PostRequest, signal: AbortSignal, handler: Dispatcher.DispatchHandler): void {
  if (signal.aborted) throw signal.reason;
  let controller: Dispatcher.DispatchController | undefined;
  const onAbort = () => controller?.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  // Once the request is over nothing may abort it, and nothing of ours should keep undici's controller (with the
  // response's raw headers and the connection's closures) reachable: holding it had V8 promote about a third more of
  // each streamed request's objects to the old generation (docs/benchmarks-history.md, inference, "2026-11-27: a
  // process per core by default").
  const settle = () => {
    signal.removeEventListener('abort', onAbort);
    controller = undefined;
  };
  const cancellable: Dispatcher.DispatchHandler = {
    onRequestStart(requestController, context) {
      controller = requestController;
      if (signal.aborted) requestController.abort(signal.reason);
      handler.onRequestStart?.(requestController, context);
    },
    onResponseStart: (responseController, statusCode, headers, statusMessage) =>
      handler.onResponseStart?.(responseController, statusCode, headers, statusMessage),
    onResponseData: (dataController, chunk) => handler.onResponseData?.(dataController, chunk),
    onResponseEnd(endController, trailers) {
      settle();
      handler.onResponseEnd?.(endController, trailers);
    },
    onResponseError(errorController, error) {
      settle();
      handler.onResponseError?.(errorController, error);
    },
  };
  try {
    pool.dispatch({ path: request.path, method: 'POST', headers: request.headers, body: request.body }, cancellable);
  } catch (error) {
    settle();
    throw error;
  }
}
