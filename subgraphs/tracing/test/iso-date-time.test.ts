import { describe, expect, it } from 'vitest';
import { parseIsoDateTime } from '../schema-helpers.js';

describe('parseIsoDateTime', () => {
  it('reads what toISOString writes as it reads any other ISO date-time (same normalization, same refusals)', () => {
    // The first five take the short path (toISOString's shape); the answers are what the general path gives.
    const cases: [string, string | null][] = [
      ['2026-11-25T01:02:03.456Z', '2026-11-25T01:02:03.456Z'],
      ['2026-02-30T00:00:00.000Z', '2026-03-02T00:00:00.000Z'],
      ['2026-01-01T24:00:00.000Z', '2026-01-02T00:00:00.000Z'],
      ['2026-13-01T00:00:00.000Z', null],
      ['2026-01-01T23:59:60.000Z', null],
      ['2026-11-25T01:02:03.456789Z', '2026-11-25T01:02:03.456Z'],
      ['2026-11-25 01:02:03', '2026-11-25T01:02:03.000Z'],
      ['2026-11-25T01:02:03+02:00', '2026-11-24T23:02:03.000Z'],
      ['2026-02-30T25:00:00Z', null],
    ];
    for (const [value, expected] of cases) {
      const date = parseIsoDateTime(value);
      expect(Number.isNaN(date.getTime()) ? null : date.toISOString(), value).toBe(expected);
    }
  });
});
