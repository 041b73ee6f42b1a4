/**
 * An exact sum of PostgreSQL `numeric` values given as their text (`-12.3400`, never exponent notation), turned
 * into the float8 PostgreSQL's `sum(numeric)::float8` gives: the exact decimal, correctly rounded once at the
 * end (PostgreSQL converts numeric to float8 through its decimal text and strtod; `Number(text)` rounds the same
 * way). Rating sums are added this way so that merging rollup rows in JavaScript answers exactly what summing
 * the feedback rows in any order answers.
 *
 * Most sums have one term (one rollup row per bucket and rating name), so the text is kept as it is until a second
 * term arrives; only then are the terms scaled to a common number of decimals and added as BigInts.
 */
export class DecimalSum {
  private text: string | null;
  private digits = 0n;
  private scale = 0;

  constructor(first: string) {
    this.text = first;
  }

  add(text: string, sign: 1 | -1 = 1): void {
    if (this.text !== null) {
      this.absorb(this.text, 1);
      this.text = null;
    }
    this.absorb(text, sign);
  }

  toNumber(): number {
    if (this.text !== null) return Number(this.text);
    const negative = this.digits < 0n;
    const magnitude = (negative ? -this.digits : this.digits).toString().padStart(this.scale + 1, '0');
    const point = magnitude.length - this.scale;
    return Number(`${negative ? '-' : ''}${magnitude.slice(0, point)}.${magnitude.slice(point) || '0'}`);
  }

  private absorb(text: string, sign: 1 | -1): void {
    const dot = text.indexOf('.');
    const scale = dot < 0 ? 0 : text.length - dot - 1;
    let digits = BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1));
    if (sign < 0) digits = -digits;
    if (scale > this.scale) {
      this.digits *= 10n ** BigInt(scale - this.scale);
      this.scale = scale;
    } else if (scale < this.scale) {
      digits *= 10n ** BigInt(this.scale - scale);
    }
    this.digits += digits;
  }
}
