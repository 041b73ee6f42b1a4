/**
 * The API key of an Authorization header: `Bearer <key>` (OpenAI, ART clients) or HTTP Basic with user `api` and
 * the key as password (what the Weave SDKs send, as W&B expects). `none`: no key was sent (anonymous); `invalid`:
 * credentials were sent that can never be right (Basic with another user), to be refused like an unknown key.
 */
export type Credentials = { kind: 'none' } | { kind: 'key'; key: string } | { kind: 'invalid' };

/** The only Basic user name accepted: W&B's, and the one every Weave SDK sends (`api:<key>`). */
export const BASIC_USER = 'api';

export function credentialsFromAuthorization(header: string | undefined): Credentials {
  if (!header) return { kind: 'none' };
  const space = header.indexOf(' ');
  if (space < 0) return { kind: 'none' };
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer') return value ? { kind: 'key', key: value } : { kind: 'none' };
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { kind: 'none' };
    const key = decoded.slice(colon + 1);
    if (!key) return { kind: 'none' };
    return decoded.slice(0, colon) === BASIC_USER ? { kind: 'key', key } : { kind: 'invalid' };
  }
  return { kind: 'none' };
}

/** The API key of an Authorization header, or undefined when there is none usable (see credentialsFromAuthorization). */
export function apiKeyFromAuthorization(header: string | undefined): string | undefined {
  const credentials = credentialsFromAuthorization(header);
  return credentials.kind === 'key' ? credentials.key : undefined;
}
