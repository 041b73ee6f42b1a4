/**
 * An exact sum of PostgreSQL `numeric` values given as their text (`-12.3400`, never exponent notation), turned
 * into the float8 PostgreSQL's `sum(numeric)::float8` gives: the exact decimal, correctly rounded once at the
 * end (PostgreSQL converts numeric to float8 through its decimal text and strtod; `Number(text)` rounds the same
 * way). Rating sums are added this way so that merging rollup rows in JavaScript answers exactly what summing
 * the feedback rows in any order answers.
 *
 * Most sums have one term, so the text is kept as it is until a second term arrives. Terms are then held as an
 * integer count of 10^-scale in two exact float64 limbs (high · 10^9 + low), which covers 24 significant digits
 * without allocating; a term that does not fit moves the sum to BigInt.
 */
const LIMB = 1e9;
const LIMB_DIGITS = 9;
const MAX_DIGITS = 24;

export class DecimalSum {
  private text: string | null;
  private scale = 0;
  private high = 0;
  private low = 0;
  private big: bigint | null = null;

  constructor(first: string) {
    this.text = first;
  }

  add(text: string, sign: 1 | -1 = 1): void {
    if (this.text !== null) {
      const first = this.text;
      this.text = null;
      this.scale = scaleOf(first);
      this.absorb(first, 1);
    }
    this.absorb(text, sign);
  }

  toNumber(): number {
    if (this.text !== null) return Number(this.text);
    const [negative, magnitude] = this.big === null ? this.limbsAsDigits() : [this.big < 0n, (this.big < 0n ? -this.big : this.big).toString()];
    const digits = magnitude.padStart(this.scale + 1, '0');
    const point = digits.length - this.scale;
    return Number(`${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point) || '0'}`);
  }

  private absorb(text: string, sign: 1 | -1): void {
    const scale = scaleOf(text);
    if (scale > this.scale) this.rescale(scale);
    // The term's digits at this sum's scale, without sign and point.
    const negative = text.charCodeAt(0) === 45; /* - */
    const dot = text.indexOf('.');
    let digits = dot < 0 ? text.slice(negative ? 1 : 0) : text.slice(negative ? 1 : 0, dot) + text.slice(dot + 1);
    if (scale < this.scale) digits += '0'.repeat(this.scale - scale);
    const termSign = negative ? -sign : sign;
    if (this.big === null && digits.length <= MAX_DIGITS) {
      const split = Math.max(0, digits.length - LIMB_DIGITS);
      this.high += termSign * Number(digits.slice(0, split) || '0');
      this.low += termSign * Number(digits.slice(split));
      // Keep both limbs well inside 2^53.
      if (Math.abs(this.low) >= LIMB) {
        const carry = Math.trunc(this.low / LIMB);
        this.high += carry;
        this.low -= carry * LIMB;
      }
      if (Math.abs(this.high) < 2 ** 52) return;
      this.big = this.limbsAsBigInt() - BigInt(termSign) * BigInt(digits); // undo the term, then add it exactly
    }
    this.big = (this.big ?? this.limbsAsBigInt()) + BigInt(termSign) * BigInt(digits);
  }

  /** Multiplies the held value by 10^(scale - this.scale): the sum takes the largest scale of its terms. */
  private rescale(scale: number): void {
    const factor = 10n ** BigInt(scale - this.scale);
    this.big = (this.big ?? this.limbsAsBigInt()) * factor;
    this.scale = scale;
    // Back to limbs when it fits (the usual case: a first term with fewer decimals).
    const magnitude = this.big < 0n ? -this.big : this.big;
    if (magnitude < 10n ** BigInt(MAX_DIGITS - 1)) {
      this.high = Number(this.big / BigInt(LIMB));
      this.low = Number(this.big % BigInt(LIMB));
      this.big = null;
    }
  }

  /** Sign and decimal digits of high · 10^9 + low, with the limbs brought to one sign first. */
  private limbsAsDigits(): [boolean, string] {
    let { high, low } = this;
    if (high > 0 && low < 0) {
      high -= 1;
      low += LIMB;
    } else if (high < 0 && low > 0) {
      high += 1;
      low -= LIMB;
    }
    const negative = high < 0 || low < 0;
    high = Math.abs(high);
    low = Math.abs(low);
    return [negative, high === 0 ? String(low) : `${high}${String(low).padStart(LIMB_DIGITS, '0')}`];
  }

  private limbsAsBigInt(): bigint {
    return BigInt(this.high) * BigInt(LIMB) + BigInt(this.low);
  }
}

function scaleOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}
