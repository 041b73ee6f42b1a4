/**
 * Reads the API key from an Authorization header: `Bearer <key>` (OpenAI, ART clients) or HTTP Basic with
 * user `api` and the key as password (what the Weave SDK sends). Returns undefined when no key is present.
 */
export function apiKeyFromAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer') return value || undefined;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    return decoded.slice(colon + 1) || undefined;
  }
  return undefined;
}
