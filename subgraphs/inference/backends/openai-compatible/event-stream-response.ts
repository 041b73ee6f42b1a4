import type { IncomingHttpHeaders } from 'node:http';
import { TextDecoder } from 'node:util';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher, Pool } from 'undici';
import { dispatchPost, type PostRequest } from './dispatch-post.js';
import { ResponseBodyError, type WholeResponse } from './whole-response.js';

/**
 * A streaming POST read through undici's `dispatch` with a handler that feeds the server-sent-events parser
 * straight from the socket's chunks. `pool.request()` would wrap the body in a Readable, read it through an async
 * iterator and a text decoder stream: on a streamed completion that was the largest part of the upstream client's
 * CPU per request. A 200 response resolves as soon as its status line and headers arrive (the events follow);
 * any other status resolves with its whole body, to be judged like a non-streaming answer.
 */
export interface EventStreamResponse {
  statusCode: 200;
  headers: IncomingHttpHeaders;
  /** The `data` field of each event, in order, as soon as the event is complete. */
  events(): AsyncIterableIterator<string, undefined>;
  /**
   * Stops reading. `finished` (the stream's terminal event was seen): whatever little follows is read and dropped,
   * so the connection goes back to the pool; otherwise (error, client gone) the request is aborted, which closes
   * the connection and stops the upstream's work.
   */
  close(finished: boolean): void;
}

/** Queued events beyond which the upstream is paused until the consumer catches up (a slow client). */
const PAUSE_ABOVE = 256;
/** After the terminal event, at most this much more of the body is read to keep the connection. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Rejects with undici's own error when the request failed before a response started (connection error, no first
 * byte in time), with a ResponseBodyError when a non-200 body broke off; an error while the events of a 200 are
 * read is thrown by `events()`, after the events that came before it, as undici reported it. `signal` aborts.
 */
export function requestEventStream(
  pool: Pool,
  request: PostRequest,
  signal: AbortSignal,
): Promise<EventStreamResponse | WholeResponse> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let statusCode = 0;
    let headers: IncomingHttpHeaders = {};
    // Non-200: the body, collected whole.
    const chunks: Buffer[] = [];
    // 200: parsed events waiting for the consumer.
    const queue: string[] = [];
    let parser: EventSourceParser | undefined;
    let decoder: TextDecoder | undefined;
    let ended = false;
    let failure: Error | undefined;
    let closed: 'draining' | 'aborted' | undefined;
    let drained = 0;
    let wake: (() => void) | undefined;
    const notify = () => {
      const resume = wake;
      wake = undefined;
      resume?.();
    };

    // An iterator with an async `next`, not an async generator, and (below) no getter: either made V8 keep objects
    // of finished requests reachable for the young-generation collector, which then promoted them — ≈ 1.4 KB a request
    // each in the probe of docs/benchmarks-history.md (inference, "2026-11-27, second session").
    const next = async (): Promise<IteratorResult<string, undefined>> => {
      for (;;) {
        if (queue.length > 0) {
          const data = queue.shift()!;
          if (queue.length === 0 && controller?.paused) controller.resume();
          return { done: false, value: data };
        }
        if (failure) throw failure;
        if (ended) return { done: true, value: undefined };
        await new Promise<void>((resume) => (wake = resume));
      }
    };
    const iterator: AsyncIterableIterator<string, undefined> = {
      next,
      [Symbol.asyncIterator]: () => iterator,
    };

    // Made once the headers are known, so `headers` is a plain property: a getter in this per-request object literal
    // kept finished requests from being collected young (measured in the probe; V8 allocates accessor pairs in the old
    // generation, which would explain it).
    const streamOf = (responseHeaders: IncomingHttpHeaders): EventStreamResponse => ({
      statusCode: 200,
      headers: responseHeaders,
      events: () => iterator,
      close(finished) {
        if (ended || failure || closed) return;
        queue.length = 0;
        if (finished) {
          closed = 'draining';
          if (controller?.paused) controller.resume();
        } else {
          closed = 'aborted';
          controller?.abort(new Error('event stream closed by its reader'));
        }
      },
    });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(requestController) {
        controller = requestController;
      },
      onResponseStart(_controller, status, responseHeaders) {
        statusCode = status;
        headers = responseHeaders;
        if (status !== 200) return;
        decoder = new TextDecoder();
        parser = createParser({ onEvent: (event) => queue.push(event.data) });
        resolve(streamOf(responseHeaders));
      },
      onResponseData(dataController, chunk) {
        if (statusCode !== 200) {
          chunks.push(chunk);
          return;
        }
        if (closed === 'draining') {
          drained += chunk.length;
          if (drained > DRAIN_LIMIT_BYTES) dataController.abort(new Error('too much after the end of the event stream'));
          return;
        }
        if (closed) return;
        parser!.feed(decoder!.decode(chunk, { stream: true }));
        if (queue.length > PAUSE_ABOVE) dataController.pause();
        if (queue.length > 0) notify();
      },
      onResponseEnd() {
        if (statusCode !== 200) {
          resolve({ statusCode, headers, text: Buffer.concat(chunks).toString('utf8') });
          return;
        }
        if (!closed) parser!.feed(decoder!.decode());
        ended = true;
        // Nothing to pause, resume or abort any more: let undici's controller go (see dispatch-post.ts).
        controller = undefined;
        notify();
      },
      onResponseError(_controller, error) {
        if (statusCode === 0) return reject(error);
        if (statusCode !== 200) return reject(new ResponseBodyError(error, statusCode, headers));
        controller = undefined;
        if (closed) return;
        failure = error;
        notify();
      },
    };
    try {
      dispatchPost(pool, request, signal, handler);
    } catch (error) {
      reject(error);
    }
  });
}
