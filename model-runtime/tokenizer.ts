/**
 * Byte-level tokenizer: ids 0–255 are raw UTF-8 bytes, then a few special
 * tokens. Nothing to download, and every string round-trips exactly.
 */
export const SPECIAL_TOKENS = {
  bos: 256,
  end: 257, // end of a turn; also the end-of-sequence token
  system: 258,
  user: 259,
  assistant: 260,
  pad: 261,
} as const;

export const BYTE_TOKENIZER_VOCAB_SIZE = 262;

const SPECIAL_NAMES: Record<number, string> = {
  256: '<|bos|>',
  257: '<|end|>',
  258: '<|system|>',
  259: '<|user|>',
  260: '<|assistant|>',
  261: '<|pad|>',
};
const SPECIAL_BY_NAME = new Map(Object.entries(SPECIAL_NAMES).map(([id, name]) => [name, Number(id)]));

const encoder = new TextEncoder();

export function encodeText(text: string): number[] {
  return Array.from(encoder.encode(text));
}

export function decodeTokens(tokens: readonly number[]): string {
  const bytes = tokens.filter((t) => t < 256);
  return Buffer.from(bytes).toString('utf8');
}

export function isSpecialToken(id: number): boolean {
  return id >= 256;
}

/** OpenAI-style token string: the character for ASCII bytes, `bytes:\xNN` for partial UTF-8, the name for specials. */
export function tokenDisplayString(id: number): string {
  if (id >= 256) return SPECIAL_NAMES[id] ?? `<|special_${id}|>`;
  if (id < 128) return String.fromCharCode(id);
  return `bytes:\\x${id.toString(16).padStart(2, '0')}`;
}

export function tokenBytes(id: number): number[] {
  return id < 256 ? [id] : [];
}

/** Inverse of tokenDisplayString/tokenBytes, for logprob entries that come back from RL clients. */
export function tokenIdFromLogprobEntry(token: string, bytes?: readonly number[] | null): number | undefined {
  const special = SPECIAL_BY_NAME.get(token);
  if (special !== undefined && (!bytes || bytes.length === 0)) return special;
  if (bytes && bytes.length === 1) return bytes[0];
  const m = /^bytes:\\x([0-9a-f]{2})$/i.exec(token);
  if (m) return parseInt(m[1], 16);
  const encoded = encoder.encode(token);
  return encoded.length === 1 ? encoded[0] : undefined;
}
