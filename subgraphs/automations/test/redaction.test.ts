import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../secret/redaction.js';

const SECRET = 'pa"ss/wörd 1+2&3';

describe('secret redaction', () => {
  it('redacts escaped, encoded and base64 forms, also mixed escaping and either hex case', () => {
    const redactor = new SecretRedactor([SECRET]);
    const forms = [
      SECRET,
      'pa\\"ss\\/w\\u00f6rd 1+2&3',
      'pa\\u0022ss/w\\u00F6rd 1+2&3',
      'pa\\\\\\"ss/wörd 1+2&3', // JSON in JSON
      'pa%22ss%2Fw%C3%B6rd%201%2B2%263',
      'pa%22ss/w%c3%b6rd+1%2b2%263',
      'pa&quot;ss/w&#246;rd 1+2&amp;3',
    ];
    for (const form of forms) expect(redactor.redact(`<${form}>`), form).toBe('<[redacted]>');
    // base64: all but a last character that also encodes what follows (a few bits of the last byte) and padding.
    for (const form of [Buffer.from(SECRET).toString('base64'), Buffer.from(SECRET).toString('base64url')]) {
      expect(redactor.redact(`<${form}>`), form).toMatch(/^<\[redacted\][A-Za-z0-9_-]?=*>$/);
    }
    // Inside a longer base64 text, at any alignment: what is left cannot hold more than a few bits of it.
    for (const before of ['', 'a', 'ab']) {
      const encoded = Buffer.from(`${before}${SECRET}!`).toString('base64');
      expect(redactor.redact(encoded), before).toContain('[redacted]');
      expect(redactor.redact(encoded).replace('[redacted]', '').length).toBeLessThanOrEqual(8);
    }
  });

  it('redacts overlapping secrets as one range and leaves secrets under 3 characters alone', () => {
    const redactor = new SecretRedactor(['abcdef', 'defghi', 'xy']);
    expect(redactor.redact('1 abcdefghi 2 xy')).toBe('1 [redacted] 2 xy');
  });

  it('redacts before cutting, and a cut end that could start a secret, in any form', () => {
    const redactor = new SecretRedactor([SECRET]);
    // A complete secret across the cut is redacted whole (the marker is not split).
    expect(redactor.redactAndTruncate(`${'x'.repeat(10)}${SECRET}tail`, 12)).toBe(`${'x'.repeat(10)}[redacted]…`);
    // A text that was itself cut (a body read up to a byte limit) ending in a piece of a secret.
    for (const piece of ['pa"s', 'pa\\"ss\\/w\\u00', 'pa%22ss%2', 'pa&quot;s', Buffer.from(SECRET).toString('base64').slice(0, 6)]) {
      expect(redactor.redactAndTruncate(`keep ${piece}`, 100, true), piece).toBe('keep [redacted]…');
    }
    // Text that was not cut is left as the receiver sent it.
    expect(redactor.redactAndTruncate('keep pa"s', 100)).toBe('keep pa"s');
    expect(redactor.redactAndTruncate('keep it', 100, true)).toBe('keep it…');
  });

  it('takes time linear in the text whatever the secret (a long, repetitive one on a long matching text)', () => {
    const redactor = new SecretRedactor(['x'.repeat(7999) + 'y', 'ab'.repeat(4000)]);
    const started = performance.now();
    expect(redactor.redactAndTruncate('x'.repeat(8192), 2048, true)).toBe('[redacted]…');
    expect(redactor.redact('ab'.repeat(4100))).toBe('[redacted]');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
