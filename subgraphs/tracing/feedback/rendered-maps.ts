/**
 * Readers of the rendered forms the aggregation's rows carry (defined by the functions of migration
 * 2026-11-22T0300-rendered-rollup-maps):
 * - `names`: `[["tag", …], ["rating name", …]]`, JSON;
 * - `maps`: `tag counts;rating counts;rating sums`, each section comma-separated in the names' order, counts as
 *   integers and sums as PostgreSQL numeric text.
 */
export interface RenderedNames {
  tags: string[];
  ratings: string[];
}

/** Parses each distinct `names` text once: a month of rows repeats a handful of them. */
export class NamesCache {
  private readonly parsed = new Map<string, RenderedNames>();

  of(text: string): RenderedNames {
    let names = this.parsed.get(text);
    if (!names) {
      const [tags, ratings] = JSON.parse(text) as [string[], string[]];
      names = { tags, ratings };
      this.parsed.set(text, names);
    }
    return names;
  }
}

const COMMA = 44;
const SEMICOLON = 59;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;

/**
 * Reads a `maps` text value by value, without splitting it (a month is tens of thousands of values): `section(i)`
 * moves to the start of section i, `count()` / `decimal()` read its values in order, and `endSection(i)` checks
 * that exactly the section's values were read (a rollup row whose maps disagree with its names is an error, not
 * an answer).
 */
export class MapsReader {
  private text = '';
  private at = 0;
  // Where each section starts, and where the one after the last would (past the end and its missing separator).
  private bounds: [number, number, number, number] = [0, 0, 0, 0];

  start(text: string): this {
    const first = text.indexOf(';');
    const second = first < 0 ? -1 : text.indexOf(';', first + 1);
    this.text = text;
    if (second < 0 || text.indexOf(';', second + 1) >= 0) this.malformed();
    this.bounds = [0, first + 1, second + 1, text.length + 1];
    this.at = 0;
    return this;
  }

  section(index: 0 | 1 | 2): void {
    this.at = this.bounds[index];
  }

  endSection(index: 0 | 1 | 2): void {
    const empty = this.at === this.bounds[index] && this.bounds[index + 1]! === this.at + 1;
    if (this.at !== this.bounds[index + 1] && !empty) this.malformed();
  }

  /** The next integer of the current section. */
  count(): number {
    const { text } = this;
    const end = text.length;
    let at = this.at;
    const negative = at < end && text.charCodeAt(at) === MINUS;
    if (negative) at++;
    const first = at;
    let value = 0;
    for (; at < end; at++) {
      const code = text.charCodeAt(at);
      if (code < ZERO || code > NINE) break;
      value = value * 10 + (code - ZERO);
    }
    if (at === first || (at < end && !isSeparator(text.charCodeAt(at)))) this.malformed();
    this.at = at + 1; // past the separator
    return negative ? -value : value;
  }

  /** The next numeric text of the current section, as PostgreSQL wrote it. */
  decimal(): string {
    const { text } = this;
    const end = text.length;
    const from = this.at;
    let at = from;
    while (at < end && !isSeparator(text.charCodeAt(at))) at++;
    if (at === from) this.malformed();
    this.at = at + 1;
    return text.slice(from, at);
  }

  private malformed(): never {
    throw new Error(`malformed rollup maps at ${this.at}: ${this.text.slice(0, 80)}`);
  }
}

function isSeparator(code: number): boolean {
  return code === COMMA || code === SEMICOLON;
}
