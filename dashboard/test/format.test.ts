import { describe, expect, it } from 'vitest';
import { formatCompactNumber } from '../src/components/Format.js';

describe('formatCompactNumber (Home totals on small cards)', () => {
  it('keeps counts under 100,000 exact and shortens larger ones', () => {
    expect(formatCompactNumber(0)).toBe('0');
    expect(formatCompactNumber(99_999)).toBe('99,999');
    // "102,660" overflowed its card on Home; one decimal of thousands or millions fits.
    expect(formatCompactNumber(102_660)).toBe('102.7K');
    expect(formatCompactNumber(3_412_000)).toBe('3.4M');
  });
});
