import { createParser } from 'eventsource-parser';

/**
 * The `data` fields of a server-sent-events body, in order, as soon as each event is complete. The body is
 * consumed lazily: a consumer that stops early leaves the rest unread (the caller destroys the body).
 */
export async function* upstreamEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    while (ready.length > 0) yield ready.shift()!;
  }
  parser.feed(decoder.decode());
  while (ready.length > 0) yield ready.shift()!;
}
