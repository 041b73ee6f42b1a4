import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';

/**
 * The `data` fields of a server-sent-events body, in order, as soon as each event is complete. The body is
 * consumed lazily, and a consumer that stops early (at `[DONE]`, on an error, when the client went away) leaves
 * the body as it is: the caller decides whether to read the few bytes that are left, so the connection goes
 * back to the pool, or to destroy it. (Breaking out of a plain `for await` over a Readable would destroy it,
 * closing a connection that could have been reused, and build an AbortError with a stack trace per request.)
 */
export async function* upstreamEvents(body: Readable): AsyncGenerator<string> {
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  const decoder = new TextDecoder();
  for await (const bytes of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    while (ready.length > 0) yield ready.shift()!;
  }
  parser.feed(decoder.decode());
  while (ready.length > 0) yield ready.shift()!;
}
