/**
 * The API key lives in this tab's session storage only: never in a URL, never logged, gone when the tab closes
 * or on sign-out. The GraphQL explorer (server/http/graphql-explorer/explorer.js) reads the same entry, so the tab
 * opens it signed in.
 */
const STORAGE_KEY = 'trellis.dashboard.apiKey';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(STORAGE_KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
