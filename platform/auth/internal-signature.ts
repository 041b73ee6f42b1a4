import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from './principal.js';

/**
 * In the distributed topology the gateway forwards the caller's identity to subgraph services in a header signed
 * with a secret only platform processes share, so a subgraph port reached directly cannot be handed a forged
 * identity. The timestamp bounds replay of a captured header.
 */
export const PRINCIPAL_HEADER = 'x-trellis-principal';
export const SIGNATURE_HEADER = 'x-trellis-signature';
const MAX_SKEW_MS = 60_000;

export function signPrincipal(principal: Principal | null, secret: string, now = Date.now()): Record<string, string> {
  const payload = Buffer.from(JSON.stringify({ p: principal, t: now })).toString('base64url');
  return { [PRINCIPAL_HEADER]: payload, [SIGNATURE_HEADER]: mac(payload, secret) };
}

export class InvalidInternalSignatureError extends Error {
  override name = 'InvalidInternalSignatureError';
  constructor(
    message: string,
    /** `bad-signature`: signed, but with another secret (in practice a gateway configured with a different one). */
    readonly reason: 'missing' | 'bad-signature' | 'expired',
  ) {
    super(message);
  }
}

/** Returns the forwarded principal (null for an anonymous caller) or throws when the header is forged or stale. */
export function verifyPrincipal(
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  now = Date.now(),
): Principal | null {
  const payload = headers[PRINCIPAL_HEADER];
  const signature = headers[SIGNATURE_HEADER];
  if (typeof payload !== 'string' || typeof signature !== 'string') {
    throw new InvalidInternalSignatureError('missing internal identity header', 'missing');
  }
  const expected = Buffer.from(mac(payload, secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new InvalidInternalSignatureError('internal identity header has a bad signature', 'bad-signature');
  }
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p: Principal | null; t: number };
  if (Math.abs(now - decoded.t) > MAX_SKEW_MS) throw new InvalidInternalSignatureError('internal identity header expired', 'expired');
  return decoded.p;
}

function mac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}
