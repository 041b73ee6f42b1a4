import type { PlatformEventStream } from '../../platform/events/index.js';

/**
 * Reads the event stream after `cursor` once nothing is held back. Transaction ids and the snapshot's xmin are
 * cluster-wide, so a transaction another test file has open in its own database on the same server holds this
 * database's newest events back (commit-safe order) for as long as it runs; they are delivered once it ends.
 */
export async function readSettled(stream: PlatformEventStream, cursor: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let page = await stream.read(cursor);
  while (page.heldBack && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    page = await stream.read(cursor);
  }
  return page;
}

/**
 * The cursor after every event committed so far, once none is held back (see readSettled): a test that reads "the
 * events after this point" must not start before events an earlier test wrote and the server still holds back.
 */
export async function settledCursor(stream: PlatformEventStream, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let cursor = await stream.latestCursor();
  while ((await stream.read(cursor)).heldBack && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    cursor = await stream.latestCursor();
  }
  return cursor;
}
