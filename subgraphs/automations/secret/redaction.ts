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
 * - URL-encoded (`%XX` of the UTF-8 bytes in either hex case, `+` for a space);
 * - HTML-escaped (`&amp;`, `&#38;`, `&#x26;`…);
 * - base64 of it or of its JSON-escaped form (as payloads carry it) — standard, URL-safe, `/` JSON-escaped or
 *   `+`/`/` URL-encoded — also inside a longer base64 text such as an echoed `Authorization: Basic` header or a
 *   base64-encoded request body: the characters that depend on the secret's bytes alone, at each of the three
 *   byte alignments.
 * Within one escaped form, each character may be escaped or left as is, so encoders that escape more or less
 * (ASCII-only JSON, `encodeURI` versus `encodeURIComponent`) are covered too. Secrets shorter than 3 characters
 * are not redacted (they would redact most text); other transformations (hashes, hex, reversal…) are not
 * recognised: a receiver that transforms secrets so is trusted with them anyway.
 *
 * Text is redacted before it is cut to its stored length, and when it was cut, an end that could be the start of
 * a secret is redacted as well.
 */
export const REDACTED = '[redacted]';

/** One textual form of a secret: a sequence of positions, each with the literal strings that may stand there. */
type Form = string[][];

const MIN_SECRET_LENGTH = 3;

export class SecretRedactor {
  private readonly forms: { form: Form; pattern: RegExp }[];

  constructor(secrets: readonly string[]) {
    this.forms = [...new Set(secrets)]
      .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
      .flatMap(formsOf)
      .map((form) => ({ form, pattern: new RegExp(form.map((alternatives) => `(?:${alternatives.map(escapeRegex).join('|')})`).join(''), 'g') }));
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

  /** Start and end of every match of every form, overlapping ones included. */
  private occurrences(text: string): [number, number][] {
    const ranges: [number, number][] = [];
    for (const { pattern } of this.forms) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
        ranges.push([match.index, match.index + match[0].length]);
        pattern.lastIndex = match.index + 1;
      }
    }
    return ranges;
  }

  /** Where the earliest suffix of `text` that is the beginning of some form starts, if any. */
  private partialAtEnd(text: string): number | undefined {
    for (let start = 0; start < text.length; start++) {
      if (this.forms.some(({ form }) => endsInside(text, start, form))) return start;
    }
    return undefined;
  }
}

/** The first `limit` characters of `text`, or a little more where the cut would split a "[redacted]". */
function keepWholeMarker(text: string, limit: number): string {
  for (let before = 1; before < REDACTED.length; before++) {
    if (text.startsWith(REDACTED, limit - before)) return text.slice(0, limit - before + REDACTED.length);
  }
  return text.slice(0, limit);
}

/** Whether `text` from `start` to its end is a proper beginning of `form`. */
function endsInside(text: string, start: number, form: Form): boolean {
  let position = start;
  for (const alternatives of form) {
    if (position === text.length) return true;
    const rest = text.length - position;
    let next = -1;
    for (const literal of alternatives) {
      if (literal.length <= rest) {
        if (text.startsWith(literal, position)) {
          next = position + literal.length;
          break;
        }
      } else if (literal.startsWith(text.slice(position))) {
        return true;
      }
    }
    if (next < 0) return false;
    position = next;
  }
  return false; // the whole form: a complete occurrence, already redacted
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

function formsOf(secret: string): Form[] {
  const characters = [...secret];
  const json = (character: string) => jsonEscapes(character);
  return [
    characters.map((character) => [character]),
    characters.map(json),
    characters.map((character) => unique(json(character).map(jsonEscapeAll))),
    characters.map(urlEscapes),
    characters.map(htmlEscapes),
    // Payloads carry secrets JSON-escaped: a receiver that base64-encodes the body it got echoes that form.
    ...unique([secret, jsonEscapeAll(secret)]).flatMap((text) => base64Forms(Buffer.from(text, 'utf8'))),
  ].map((form) => form.map(unique));
}

const JSON_SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The ways a JSON string may hold `character`. */
function jsonEscapes(character: string): string[] {
  const escapes: string[] = [];
  if (character !== '"' && character !== '\\' && character.codePointAt(0)! >= 0x20) escapes.push(character);
  if (JSON_SHORT_ESCAPES[character]) escapes.push(JSON_SHORT_ESCAPES[character]);
  const units = [...Array(character.length).keys()].map((index) => character.charCodeAt(index).toString(16).padStart(4, '0'));
  escapes.push(units.map((unit) => `\\u${unit}`).join(''), units.map((unit) => `\\u${unit.toUpperCase()}`).join(''));
  return escapes;
}

/** `text` as the inside of a JSON string (the minimal escaping JSON.stringify does). */
function jsonEscapeAll(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function urlEscapes(character: string): string[] {
  const bytes = [...Buffer.from(character, 'utf8')].map((byte) => byte.toString(16).padStart(2, '0'));
  const escapes = [bytes.map((byte) => `%${byte.toUpperCase()}`).join(''), bytes.map((byte) => `%${byte}`).join('')];
  if (character !== '%') escapes.push(character);
  if (character === ' ') escapes.push('+');
  return escapes;
}

const HTML_NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function htmlEscapes(character: string): string[] {
  const code = character.codePointAt(0)!;
  const hex = code.toString(16);
  const escapes = [`&#${code};`, `&#x${hex};`, `&#x${hex.toUpperCase()};`, `&#X${hex.toUpperCase()};`];
  if (character !== '&') escapes.push(character);
  if (HTML_NAMED[character]) escapes.push(HTML_NAMED[character]);
  return escapes;
}

/**
 * Base64 of the secret's bytes at byte offsets 0, 1 and 2 of an encoded text: only the characters that encode the
 * secret's bits alone (the first and last may mix in neighbouring bytes).
 */
function base64Forms(bytes: Buffer): Form[] {
  const forms: Form[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (core.length < MIN_SECRET_LENGTH) continue;
    forms.push([...core].map((character) => (character === '+' ? ['+', '-', '%2B', '%2b'] : character === '/' ? ['/', '_', '\\/', '%2F', '%2f'] : [character])));
  }
  return forms;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
