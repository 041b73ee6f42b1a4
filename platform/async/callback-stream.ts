/**
 * Turns a producer that reports items by callback (the model runtime's per-token callback) into an async generator
 * that hands the items out as the consumer pulls, and returns the producer's result when it is done. Items are
 * queued, so a slow consumer (a client reading a stream) never makes the producer wait; a producer error is thrown
 * to the consumer after the items reported before it.
 */
export async function* callbackStream<Item, Result>(produce: (emit: (item: Item) => void) => Promise<Result>): AsyncGenerator<Item, Result> {
  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  let outcome: { result: Result } | { error: unknown } | undefined;
  const producing = produce((item) => {
    queue.push(item);
    wake?.();
  }).then(
    (result) => {
      outcome = { result };
      wake?.();
    },
    (error: unknown) => {
      outcome = { error };
      wake?.();
    },
  );
  for (;;) {
    if (queue.length > 0) {
      yield queue.shift()!;
      continue;
    }
    if (outcome) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  await producing;
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}
