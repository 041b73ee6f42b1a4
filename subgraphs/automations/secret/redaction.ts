/**
 * Redaction of secret values from what a receiver sends back (response bodies and headers, error messages) before
 * it is stored or returned. Project admins read delivery history but may not read their team's secrets, and they
 * choose the payload: a receiver that echoes its request (many do, in error pages too) must not hand them a secret
 * in any form, nor a piece of one where a long answer is cut off.
 *
 * A secret is recognised as it is sent and as receivers commonly re-encode it:
 * - as is;
 * - JSON-escaped (`\"`, `\\`, `\/`, `\n`…, `\u00e9` in either hex case, as JSON encoders with ASCII-only output
 *   write it), and JSON-escaped twice (a JSON echo of a JSON document);
 * - URL-encoded (`%XX` of the UTF-8 bytes in either hex case; `+` read as a space, and as itself);
 * - HTML-escaped (`&amp;`, `&#38;`, `&#x26;`…);
 * - base64 of it or of its JSON-escaped form (as payloads carry it) — standard or URL-safe, `/` JSON-escaped or
 *   `+`/`/` URL-encoded — also inside a longer base64 text such as an echoed `Authorization: Basic` header or a
 *   base64-encoded request body: the characters that depend on the secret's bytes alone, at each of the three
 *   byte alignments (one character at either edge, a few bits, may remain).
 * The text is decoded each of these ways (escapes decoded, everything else kept, so partly escaped text counts
 * too) and the secret searched in the decoded text, whose characters map back to the text: time linear in the
 * text, whatever the secret. Secrets shorter than 3 characters are not redacted (they would redact most text);
 * other transformations (hashes, hex, reversal…) are not recognised.
 *
 * Text is redacted before it is cut to its stored length, and when it was cut, an end that could be the start of
 * a secret (in any of these forms, an unfinished escape included) is redacted as well.
 */
export const REDACTED = '[redacted]';

const MIN_SECRET_LENGTH = 3;

/** A text decoded one way: decoded character i comes from text[startOf(i), endOf(i)). */
interface Decoded {
  text: string;
  startOf(index: number): number;
  endOf(index: number): number;
  /** Where an escape that the text ends in the middle of begins. */
  unfinishedFrom?: number;
}

interface Needle {
  value: string;
  /** KMP failure function: the longest proper prefix of value[0..i] that is also its suffix. */
  failure: Int32Array;
}

interface Search {
  decode: (text: string) => Decoded;
  needles: Needle[];
}

export class SecretRedactor {
  private readonly searches: Search[];

  constructor(secrets: readonly string[]) {
    const values = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
    const needles = (list: string[]) => [...new Set(list)].filter((value) => value.length >= MIN_SECRET_LENGTH).map(needle);
    const plain = needles(values);
    // Payloads carry secrets JSON-escaped: a receiver that base64-encodes the body it got echoes that form.
    const base64 = needles(values.flatMap((value) => [value, jsonEscape(value)]).flatMap((value) => base64Cores(Buffer.from(value, 'utf8'))));
    this.searches = plain.length
      ? [
          { decode: asIs, needles: plain },
          { decode: decodeJson, needles: plain },
          { decode: (text) => twice(decodeJson, text), needles: plain },
          { decode: (text) => decodePercent(text, true), needles: plain },
          { decode: (text) => decodePercent(text, false), needles: plain },
          { decode: decodeHtml, needles: plain },
          { decode: normaliseBase64, needles: base64 },
        ]
      : [];
  }

  /** `text` with every occurrence of a secret, in any form, replaced by "[redacted]". */
  redact(text: string): string {
    return replaceRanges(text, this.occurrences(text));
  }

  /**
   * At most `limit` characters of `text` (then followed by "…"), secrets redacted before the cut. `cutBefore`: the
   * text is itself the start of a longer one (a body read up to a byte limit), so its end may hold the start of a
   * secret too.
   */
  redactAndTruncate(text: string, limit: number, cutBefore = false): string {
    const redacted = this.redact(text);
    const cut = cutBefore || redacted.length > limit;
    let kept = redacted.length > limit ? keepWholeMarker(redacted, limit) : redacted;
    if (cut) {
      const start = this.partialAtEnd(kept);
      if (start !== undefined) kept = `${kept.slice(0, start)}${REDACTED}`;
    }
    return cut ? `${kept}…` : kept;
  }

  /** Start and end (in `text`) of every occurrence of every secret in every decoding, overlapping ones included. */
  private occurrences(text: string): [number, number][] {
    const ranges: [number, number][] = [];
    for (const { decode, needles } of this.searches) {
      const decoded = decode(text);
      for (const { value } of needles) {
        for (let at = decoded.text.indexOf(value); at >= 0; at = decoded.text.indexOf(value, at + 1)) {
          ranges.push([decoded.startOf(at), decoded.endOf(at + value.length - 1)]);
        }
      }
    }
    return ranges;
  }

  /** Where the earliest end of `text` that could begin a secret (in some decoding) starts, if any. */
  private partialAtEnd(text: string): number | undefined {
    let earliest: number | undefined;
    for (const { decode, needles } of this.searches) {
      const decoded = decode(text);
      for (const item of needles) {
        const matched = prefixAtEnd(decoded.text, item);
        const start = matched > 0 ? decoded.startOf(decoded.text.length - matched) : decoded.unfinishedFrom;
        if (start !== undefined && (earliest === undefined || start < earliest)) earliest = start;
      }
    }
    return earliest;
  }
}

function needle(value: string): Needle {
  const failure = new Int32Array(value.length);
  for (let i = 1, k = 0; i < value.length; i++) {
    while (k > 0 && value[i] !== value[k]) k = failure[k - 1]!;
    if (value[i] === value[k]) k++;
    failure[i] = k;
  }
  return { value, failure };
}

/** The length of the longest end of `text` that is a beginning of the needle (Knuth–Morris–Pratt, linear). */
function prefixAtEnd(text: string, { value, failure }: Needle): number {
  let matched = 0;
  for (let i = 0; i < text.length; i++) {
    if (matched === value.length) matched = failure[matched - 1]!;
    while (matched > 0 && text[i] !== value[matched]) matched = failure[matched - 1]!;
    if (text[i] === value[matched]) matched++;
  }
  return matched;
}

/** The first `limit` characters of `text`, or a little more where the cut would split a "[redacted]". */
function keepWholeMarker(text: string, limit: number): string {
  for (let before = 1; before < REDACTED.length; before++) {
    if (text.startsWith(REDACTED, limit - before)) return text.slice(0, limit - before + REDACTED.length);
  }
  return text.slice(0, limit);
}

function replaceRanges(text: string, ranges: [number, number][]): string {
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let result = '';
  let position = 0;
  let [start, end] = ranges[0]!;
  for (const [nextStart, nextEnd] of ranges.slice(1)) {
    if (nextStart <= end) {
      end = Math.max(end, nextEnd);
      continue;
    }
    result += text.slice(position, start) + REDACTED;
    position = end;
    [start, end] = [nextStart, nextEnd];
  }
  return result + text.slice(position, start) + REDACTED + text.slice(end);
}

/**
 * Builds a Decoded from runs of characters kept as they are and escapes decoded, so the map back to the text costs
 * one entry per run or escape, not per character.
 */
class DecodedBuilder {
  private readonly parts: string[] = [];
  /** Per segment: where it starts in the decoded text, where in the text, where it ends in the text, kept as is. */
  private readonly segments: { decoded: number; from: number; to: number; asIs: boolean }[] = [];
  private length = 0;
  unfinishedFrom: number | undefined;

  constructor(private readonly source: string) {}

  /** source[from, to) kept as it is. */
  keep(from: number, to: number): void {
    if (to <= from) return;
    this.add(this.source.slice(from, to), from, to, true);
  }

  /** `characters`, decoded from source[from, to). */
  decoded(characters: string, from: number, to: number): void {
    this.add(characters, from, to, false);
  }

  done(): Decoded {
    const { segments } = this;
    const segmentOf = (index: number) => {
      let low = 0;
      let high = segments.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (segments[middle]!.decoded <= index) low = middle;
        else high = middle - 1;
      }
      return segments[low]!;
    };
    return {
      text: this.parts.join(''),
      startOf: (index) => {
        const segment = segmentOf(index);
        return segment.asIs ? segment.from + index - segment.decoded : segment.from;
      },
      endOf: (index) => {
        const segment = segmentOf(index);
        return segment.asIs ? segment.from + index - segment.decoded + 1 : segment.to;
      },
      unfinishedFrom: this.unfinishedFrom,
    };
  }

  private add(characters: string, from: number, to: number, asIs: boolean): void {
    this.parts.push(characters);
    this.segments.push({ decoded: this.length, from, to, asIs });
    this.length += characters.length;
  }
}

function asIs(text: string): Decoded {
  return { text, startOf: (index) => index, endOf: (index) => index + 1 };
}

/** Decodes `text`, then decodes the result again; positions map back to `text`. */
function twice(decode: (text: string) => Decoded, text: string): Decoded {
  const once = decode(text);
  if (once.text === text) return once;
  const again = decode(once.text);
  const unfinished = [once.unfinishedFrom, again.unfinishedFrom === undefined ? undefined : once.startOf(again.unfinishedFrom)];
  return {
    text: again.text,
    startOf: (index) => once.startOf(again.startOf(index)),
    endOf: (index) => once.endOf(again.endOf(index) - 1),
    unfinishedFrom: unfinished.filter((position): position is number => position !== undefined).sort((a, b) => a - b)[0],
  };
}

const JSON_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX = /^[0-9a-fA-F]*$/;

/** The index of the next character of `special` at or after `from`, or the text's length. */
function nextSpecial(text: string, special: RegExp, from: number): number {
  special.lastIndex = from;
  const match = special.exec(text);
  return match ? match.index : text.length;
}

function decodeJson(text: string): Decoded {
  if (!text.includes('\\')) return asIs(text);
  const out = new DecodedBuilder(text);
  for (let i = 0; i < text.length; ) {
    const escape = nextSpecial(text, /\\/g, i);
    out.keep(i, escape);
    i = escape;
    if (i === text.length) break;
    const next = text[i + 1];
    if (next === undefined) {
      out.unfinishedFrom = i;
      break;
    }
    if (JSON_ESCAPES[next] !== undefined) {
      out.decoded(JSON_ESCAPES[next], i, (i += 2));
      continue;
    }
    if (next === 'u') {
      const digits = text.slice(i + 2, i + 6);
      if (digits.length === 4 && HEX.test(digits)) {
        out.decoded(String.fromCharCode(Number.parseInt(digits, 16)), i, (i += 6));
        continue;
      }
      if (i + 2 + digits.length === text.length && HEX.test(digits)) {
        out.unfinishedFrom = i;
        break;
      }
    }
    out.keep(i, ++i);
  }
  return out.done();
}

/** `%XX` sequences decoded as UTF-8 (invalid ones kept as they are); `+` as a space when `plusIsSpace`. */
function decodePercent(text: string, plusIsSpace: boolean): Decoded {
  if (!text.includes('%') && !(plusIsSpace && text.includes('+'))) return asIs(text);
  const special = plusIsSpace ? /[%+]/g : /%/g;
  const byteAt = (position: number) =>
    text[position] === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(position + 1, position + 3)) ? Number.parseInt(text.slice(position + 1, position + 3), 16) : undefined;
  const out = new DecodedBuilder(text);
  for (let i = 0; i < text.length; ) {
    const escape = nextSpecial(text, special, i);
    out.keep(i, escape);
    i = escape;
    if (i === text.length) break;
    if (text[i] === '+') {
      out.decoded(' ', i, ++i);
      continue;
    }
    const lead = byteAt(i);
    if (lead === undefined) {
      if (text.length - i < 3 && HEX.test(text.slice(i + 1))) {
        out.unfinishedFrom = i;
        break;
      }
      out.keep(i, ++i);
      continue;
    }
    const length = lead < 0x80 ? 1 : lead >> 5 === 0b110 ? 2 : lead >> 4 === 0b1110 ? 3 : lead >> 3 === 0b11110 ? 4 : 0;
    const bytes = [lead];
    while (length && bytes.length < length) {
      const continuation = byteAt(i + 3 * bytes.length);
      if (continuation === undefined || continuation >> 6 !== 0b10) break;
      bytes.push(continuation);
    }
    if (length && bytes.length === length) {
      out.decoded(Buffer.from(bytes).toString('utf8'), i, (i += 3 * length));
      continue;
    }
    const after = i + 3 * bytes.length;
    if (length && text.length - after < 3 && HEX.test(text.slice(after).replace(/^%/, ''))) {
      out.unfinishedFrom = i; // the text ends inside this character's bytes
      break;
    }
    out.keep(i, (i += 3));
  }
  return out.done();
}

const HTML_NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeHtml(text: string): Decoded {
  if (!text.includes('&')) return asIs(text);
  const out = new DecodedBuilder(text);
  for (let i = 0; i < text.length; ) {
    const escape = nextSpecial(text, /&/g, i);
    out.keep(i, escape);
    i = escape;
    if (i === text.length) break;
    const entity = /^&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,4}));/.exec(text.slice(i, i + 12));
    const code = entity ? (entity[1] ? Number(entity[1]) : entity[2] ? Number.parseInt(entity[2], 16) : undefined) : undefined;
    const character = code !== undefined && code <= 0x10ffff ? String.fromCodePoint(code) : entity?.[3] ? HTML_NAMED[entity[3]] : undefined;
    if (entity && character !== undefined) {
      out.decoded(character, i, (i += entity[0].length));
      continue;
    }
    if (text.length - i <= 10 && /^&(?:#[xX]?[0-9a-fA-F]*|[a-zA-Z]*)$/.test(text.slice(i))) {
      out.unfinishedFrom = i;
      break;
    }
    out.keep(i, ++i);
  }
  return out.done();
}

/** URL-safe base64 as standard, and `\/`, `%2B`, `%2F` as the characters they escape. */
function normaliseBase64(text: string): Decoded {
  if (!/[-_\\%]/.test(text)) return asIs(text);
  const out = new DecodedBuilder(text);
  for (let i = 0; i < text.length; ) {
    const escape = nextSpecial(text, /[-_\\%]/g, i);
    out.keep(i, escape);
    i = escape;
    if (i === text.length) break;
    const rest = text.slice(i, i + 3);
    if (text[i] === '-') out.decoded('+', i, ++i);
    else if (text[i] === '_') out.decoded('/', i, ++i);
    else if (rest.startsWith('\\/')) out.decoded('/', i, (i += 2));
    else if (/^%2[bB]$/.test(rest)) out.decoded('+', i, (i += 3));
    else if (/^%2[fF]$/.test(rest)) out.decoded('/', i, (i += 3));
    else if ((rest === '\\' || rest === '%' || rest === '%2') && i + rest.length === text.length) {
      out.unfinishedFrom = i;
      break;
    } else out.keep(i, ++i);
  }
  return out.done();
}

function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * Base64 of `bytes` at byte offsets 0, 1 and 2 of an encoded text: only the characters that encode the bytes' bits
 * alone (the first and last may mix in neighbouring bytes).
 */
function base64Cores(bytes: Buffer): string[] {
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
  });
}
