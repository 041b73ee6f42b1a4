import { describe, expect, it } from 'vitest';
import { DecimalSum } from '../feedback/decimal-sum.js';

/** The exact value of ±terms as PostgreSQL's sum(numeric)::float8 gives it, computed with BigInt. */
function reference(terms: [string, 1 | -1][]): number {
  const scaleOf = (text: string) => (text.includes('.') ? text.length - text.indexOf('.') - 1 : 0);
  const scale = Math.max(...terms.map(([text]) => scaleOf(text)));
  let sum = 0n;
  for (const [text, sign] of terms) {
    const negative = text.startsWith('-');
    const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
    sum += BigInt(sign) * (negative ? -1n : 1n) * BigInt(whole! + fraction.padEnd(scale, '0'));
  }
  const digits = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, '0');
  return Number(`${sum < 0n ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale) || '0'}`);
}

/** A numeric's text as PostgreSQL prints it: up to 22 digits, up to 30 decimals, no exponent. */
function randomNumeric(random: () => number): string {
  const length = 1 + Math.floor(random() * 22);
  let digits = '';
  for (let i = 0; i < length; i++) digits += Math.floor(random() * 10);
  const scale = Math.floor(random() * 30);
  digits = digits.padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale).replace(/^0+(?=\d)/, '');
  return `${random() < 0.3 ? '-' : ''}${whole}${scale ? `.${digits.slice(digits.length - scale)}` : ''}`;
}

describe('DecimalSum', () => {
  it('adds and subtracts numeric text exactly and rounds once, like sum(numeric)::float8', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (let i = 0; i < 20_000; i++) {
      const terms = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, k): [string, 1 | -1] => [randomNumeric(random), k > 0 && random() < 0.3 ? -1 : 1]);
      const sum = new DecimalSum(terms[0]![0]);
      for (const [text, sign] of terms.slice(1)) sum.add(text, sign);
      expect(sum.toNumber() + 0, JSON.stringify(terms)).toBe(reference(terms) + 0);
    }
  });

  it('keeps the digits a float64 sum would lose', () => {
    const sum = new DecimalSum('0.1');
    sum.add('0.2');
    expect(sum.toNumber()).toBe(0.3); // 0.1 + 0.2 in float64 is 0.30000000000000004
    const big = new DecimalSum('12345678901234567890.123456789');
    big.add('-12345678901234567890');
    expect(big.toNumber()).toBe(0.123456789);
  });
});
