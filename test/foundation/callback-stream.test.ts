import { describe, expect, it } from 'vitest';
import { callbackStream } from '../../platform/async/callback-stream.js';

async function drain<T, R>(stream: AsyncGenerator<T, R>): Promise<{ items: T[]; result: R }> {
  const items: T[] = [];
  let next = await stream.next();
  for (; !next.done; next = await stream.next()) items.push(next.value);
  return { items, result: next.value };
}

describe('callbackStream', () => {
  it('yields items reported synchronously and later, in order, then returns the result', async () => {
    const stream = callbackStream<number, string>(async (emit) => {
      emit(1);
      emit(2);
      await new Promise((resolve) => setTimeout(resolve, 5));
      emit(3);
      return 'done';
    });
    expect(await drain(stream)).toEqual({ items: [1, 2, 3], result: 'done' });
  });

  it('hands out the items reported before a failure, then throws the failure', async () => {
    const items: number[] = [];
    const stream = callbackStream<number, void>(async (emit) => {
      emit(1);
      await new Promise((resolve) => setTimeout(resolve, 5));
      emit(2);
      throw new Error('generation failed');
    });
    await expect(
      (async () => {
        for await (const item of stream) items.push(item);
      })(),
    ).rejects.toThrow('generation failed');
    expect(items).toEqual([1, 2]);
  });
});
