import { expect, it } from 'vitest';
import { uuidv7 } from '../uuidv7.js';

it('makes distinct version-7 ids that sort in the order they were made, across refills of its random pool', () => {
  const before = Date.now();
  // More ids than one pool of random words serves (1024 words, at least one an id).
  const ids = Array.from({ length: 5000 }, () => uuidv7());
  const after = Date.now();
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(ids);
  // The first 48 bits are the time in milliseconds.
  const time = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  expect(time(ids[0]!)).toBeGreaterThanOrEqual(before);
  expect(time(ids.at(-1)!)).toBeLessThanOrEqual(after);
});
