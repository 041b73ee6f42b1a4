/**
 * Signing secrets in the Standard Webhooks format: `whsec_<base64 of random bytes>`. The Standard Webhooks
 * libraries (`standardwebhooks`, `svix`, and the other languages' ports) strip the `whsec_` prefix and base64-decode
 * the rest: the decoded bytes are the HMAC key of `webhook-signature`, so the platform keys it the same way.
 *
 * A secret stored before this format (any other text) keeps its key: the text's UTF-8 bytes, as it always was, so
 * its receivers keep verifying. The Standard Webhooks libraries take it written as `whsec_` + base64(text) — the
 * same bytes.
 */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** Standard base64 with padding, as the libraries decode it (@stablelib/base64 refuses anything else). */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The HMAC key of a signing secret's `webhook-signature`: the decoded bytes of `whsec_…`, else the text's bytes. */
export function signingKey(secret: string): Buffer {
  const encoded = standardWebhooksBase64(secret);
  return encoded === undefined ? Buffer.from(secret, 'utf8') : Buffer.from(encoded, 'base64');
}

/**
 * The texts that reveal a signing secret: the secret, and for `whsec_…` the base64 key alone (what a receiver
 * that strips the prefix, as the libraries do, might echo). Redaction looks for each.
 */
export function signingSecretTexts(secret: string): string[] {
  const encoded = standardWebhooksBase64(secret);
  return encoded === undefined ? [secret] : [secret, encoded];
}

/**
 * Why a secret value cannot be stored, when it claims the Standard Webhooks format (`whsec_…`) but the libraries
 * could not decode it: a receiver would then verify with a key the platform does not use. Other values are free.
 */
export function signingSecretProblem(value: string): string | undefined {
  if (!value.startsWith(SIGNING_SECRET_PREFIX)) return undefined;
  if (standardWebhooksBase64(value) !== undefined) return undefined;
  return 'A value starting with "whsec_" is a Standard Webhooks signing secret: "whsec_" then standard base64 (with padding) of the key bytes';
}

function standardWebhooksBase64(secret: string): string | undefined {
  if (!secret.startsWith(SIGNING_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SIGNING_SECRET_PREFIX.length);
  return encoded.length > 0 && STRICT_BASE64.test(encoded) ? encoded : undefined;
}
