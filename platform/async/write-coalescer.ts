/**
 * Coalesces concurrent single writes into one batch write per flush: under load, 64 clients cost a handful of round
 * trips instead of 64. A flush starts on the next turn of the event loop after the first waiting item; while
 * `maxInFlight` flushes run, new items queue up and go out together (at most `maxBatch` per flush). Each caller is
 * answered once its flush has committed. When a flush fails, its items are written again one by one, so that one bad
 * item fails only its caller.
 */
export class WriteCoalescer<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /** `writeBatch` answers one result per item, in the items' order. */
  constructor(
    private readonly writeBatch: (items: Item[]) => Promise<Result[]>,
    private readonly options: { maxBatch: number; maxInFlight: number } = { maxBatch: 500, maxInFlight: 4 },
  ) {}

  /** Resolves with the item's result once its flush has committed. */
  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.inFlight++;
    try {
      await this.settle(batch);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  private async settle(batch: Pending<Item, Result>[]): Promise<void> {
    try {
      const results = await this.writeBatch(batch.map((pending) => pending.item));
      batch.forEach((pending, index) => pending.resolve(results[index]!));
    } catch {
      for (const pending of batch) {
        try {
          pending.resolve((await this.writeBatch([pending.item]))[0]!);
        } catch (error) {
          pending.reject(error);
        }
      }
    }
  }
}

interface Pending<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}
