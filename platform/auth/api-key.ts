import { hash, randomBytes } from 'node:crypto';

/**
 * API keys are 40 characters (the length W&B clients expect), random, and stored only as a SHA-256 hash: they
 * carry enough entropy that a slow hash adds nothing, and a fast one keeps authentication off the hot path.
 */
const KEY_PREFIX = 'trl_';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function generateApiKey(): string {
  const bytes = randomBytes(64);
  let body = '';
  for (const byte of bytes) {
    if (byte >= 248) continue; // 248 = 4 × 62: rejection sampling keeps every character equally likely
    body += ALPHABET[byte % 62];
    if (body.length === 40 - KEY_PREFIX.length) break;
  }
  if (body.length < 40 - KEY_PREFIX.length) return generateApiKey();
  return KEY_PREFIX + body;
}

/** Runs on every authenticated request: the one-shot `hash` skips building a Hash object (same digest). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** What is shown in listings: enough to recognise a key, never enough to use it. */
export function apiKeyDisplayPrefix(key: string): string {
  return key.slice(0, 8);
}
