import { describe, expect, it } from 'vitest';
import { WriteCoalescer } from '../write-coalescer.js';

describe('WriteCoalescer', () => {
  it('writes items submitted together as one batch and answers each caller with its own result', async () => {
    const batches: number[][] = [];
    const coalescer = new WriteCoalescer(async (items: number[]) => {
      batches.push(items);
      return items.map((item) => item * 10);
    });
    const results = await Promise.all([1, 2, 3].map((item) => coalescer.submit(item)));
    expect(results).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('bounds a flush by maxBatch and keeps at most maxInFlight flushes running', async () => {
    let running = 0;
    let mostRunning = 0;
    const sizes: number[] = [];
    const coalescer = new WriteCoalescer(
      async (items: number[]) => {
        running++;
        mostRunning = Math.max(mostRunning, running);
        sizes.push(items.length);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return items;
      },
      { maxBatch: 4, maxInFlight: 2 },
    );
    // Items arriving while flushes run: a second flush starts beside the first, a third waits for one to end.
    const submitted: Promise<number>[] = [];
    for (let item = 0; item < 20; item++) {
      submitted.push(coalescer.submit(item));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const results = await Promise.all(submitted);
    expect(results).toEqual(Array.from({ length: 20 }, (_, item) => item));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(20);
    expect(mostRunning).toBe(2);
  });

  it('when a batch fails, writes its items one by one: only the bad item fails its caller', async () => {
    const coalescer = new WriteCoalescer(async (items: string[]) => {
      if (items.includes('bad')) throw new Error(`refused ${items.join(',')}`);
      return items.map((item) => item.toUpperCase());
    });
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((item) => coalescer.submit(item)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('refused bad') },
      { status: 'fulfilled', value: 'C' },
    ]);
  });
});
