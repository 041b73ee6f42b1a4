import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefersHtml } from '../../server/http/graphql-explorer.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(() => platform?.close());

/** Every URL the page makes the browser load (script src, link href), with the content type it must have. */
function referencedUrls(html: string): { tag: string; url: string; type: RegExp }[] {
  const urls: { tag: string; url: string; type: RegExp }[] = [];
  for (const match of html.matchAll(/<(script|link)\b([^>]*)>/gi)) {
    const tag = match[1]!.toLowerCase();
    const attributes = match[2]!;
    const url = /\b(?:src|href)="([^"]*)"/i.exec(attributes)?.[1];
    if (url === undefined) continue;
    const rel = /\brel="([^"]*)"/i.exec(attributes)?.[1];
    const type = tag === 'script' ? /^text\/javascript/ : rel === 'stylesheet' ? /^text\/css/ : /^image\//;
    urls.push({ tag, url, type });
  }
  return urls;
}

describe('GraphQL explorer (GET /graphql from a browser)', () => {
  it('serves an HTML page under a strict Content-Security-Policy, with no inline script and nothing off-host', async () => {
    const response = await platform.fetch('/graphql', { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('id="sign-in-form"');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    // Nothing off-host: no absolute or protocol-relative URL anywhere in the page.
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(?:src|href|action)="\/\//i);
    // Every script is a file (the CSP would refuse inline code anyway).
    for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
      expect(script[1]).toMatch(/\bsrc="/);
      expect(script[2]!.trim()).toBe('');
    }
  });

  it('serves every asset the page references from the platform itself, cacheable for good', async () => {
    const html = await (await platform.fetch('/graphql', { headers: { accept: BROWSER_ACCEPT } })).text();
    const urls = referencedUrls(html);
    expect(urls.filter(({ tag }) => tag === 'script').length).toBeGreaterThanOrEqual(4); // React, ReactDOM, GraphiQL, ours
    expect(urls.filter(({ tag }) => tag === 'link').length).toBeGreaterThanOrEqual(2); // GraphiQL's styles, ours (and an icon)
    for (const { url, type } of urls) {
      expect(url.startsWith('/') && !url.startsWith('//')).toBe(true);
      const asset = await platform.fetch(url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toMatch(type);
      expect(asset.headers.get('cache-control'), url).toContain('immutable');
      expect(asset.headers.get('x-content-type-options'), url).toBe('nosniff');
      const body = await asset.text();
      expect(body.length, url).toBeGreaterThan(100);
    }
    const scripts = await Promise.all(urls.filter(({ tag }) => tag === 'script').map(async ({ url }) => (await platform.fetch(url)).text()));
    // GraphiQL's UMD build carries graphql-ws's client (subscriptions over /graphql/ws need no extra file).
    expect(scripts.some((script) => script.includes('window.GraphiQL =') && script.includes('graphql-transport-ws'))).toBe(true);
  });

  it('answers unknown asset names with 404', async () => {
    const response = await platform.fetch('/graphql/explorer/assets/graphiql.0000000000000000.js');
    expect(response.status).toBe(404);
  });

  it('leaves GraphQL over GET to Apollo: with ?query= (even from a browser) and with a JSON Accept', async () => {
    const query = encodeURIComponent('{ __typename }');
    for (const accept of ['application/json', BROWSER_ACCEPT]) {
      const response = await platform.fetch(`/graphql?query=${query}`, {
        headers: { accept, authorization: `Bearer ${platform.adminKey}`, 'apollo-require-preflight': 'true' },
      });
      expect(response.status, accept).toBe(200);
      expect(response.headers.get('content-type'), accept).toMatch(/^application\/(graphql-response\+)?json/);
      expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
    }
    // A JSON client without an operation gets Apollo's GraphQL error, not the page.
    const missing = await platform.fetch('/graphql', { headers: { accept: 'application/json' } });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).not.toMatch(/html/);
  });

  it('keeps POST /graphql as it was', async () => {
    const { status, body } = await platform.graphql('{ viewer { username } }');
    expect(status).toBe(200);
    expect(body.data.viewer.username).toBe('admin');
  });
});

describe('which GET /graphql requests get the page', () => {
  it('is those that prefer HTML over JSON', () => {
    expect(prefersHtml(BROWSER_ACCEPT)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('*/*')).toBe(false); // fetch() and curl defaults
    expect(prefersHtml('application/json')).toBe(false);
    expect(prefersHtml('application/graphql-response+json, application/json;q=0.9')).toBe(false);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    expect(prefersHtml('text/html;q=0, */*')).toBe(false);
  });
});
