import { Kind, print, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as operations from '../../../dashboard/src/graphql/generated.js';
import { dashboardTypesAreCurrent } from '../../../server/dashboard/codegen.js';
import { buildDashboard, dashboardInputsHash } from '../../../server/dashboard/build.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/** How the platform serves the built dashboard (no browser needed): caching, CSP, SPA fallback, mounts untouched. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let platform: TestPlatform;
beforeAll(async () => {
  await buildDashboard({ quiet: true });
  platform = await startTestPlatform({ workers: false });
});
afterAll(() => platform?.close());

describe('dashboard build', () => {
  it('has its generated GraphQL types up to date (npm run dashboard:codegen)', async () => {
    const { current } = await dashboardTypesAreCurrent();
    expect(current, 'dashboard/src/graphql/generated.ts is stale: run `npm run dashboard:codegen`').toBe(true);
  });

  it('is skipped when its inputs are unchanged', async () => {
    const result = await buildDashboard({ quiet: true });
    expect(result.built).toBe(false);
    expect(result.hash).toBe(await dashboardInputsHash());
  });
});

describe('dashboard operations', () => {
  it('all pass the gateway\'s depth and cost limits and run without internal errors', async () => {
    const defaults: Record<string, unknown> = { entity: 'trellis', project: 'default', team: 'trellis', id: 'none', traceId: 'none', first: 25 };
    const documents = Object.entries(operations).filter(([name]) => name.endsWith('Document')) as [string, DocumentNode][];
    expect(documents.length).toBeGreaterThan(3);
    for (const [name, document] of documents) {
      const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
      // Mutations go without variables: refused for them (BAD_USER_INPUT) only after depth and cost were checked.
      const variables = operation?.kind === Kind.OPERATION_DEFINITION && operation.operation === 'query' ? defaults : {};
      if (operation?.kind === Kind.OPERATION_DEFINITION && operation.operation === 'subscription') continue;
      const { body } = await platform.graphql(print(document), variables);
      const codes = ((body.errors ?? []) as { message: string; extensions?: { code?: string } }[]).map((error) => `${error.extensions?.code}: ${error.message}`);
      expect(codes.filter((code) => /^(GRAPHQL_VALIDATION_FAILED|GRAPHQL_PARSE_FAILED|INTERNAL|INTERNAL_SERVER_ERROR|undefined):/.test(code)), name).toEqual([]);
    }
  });
});

describe('dashboard serving (/ui/)', () => {
  it('redirects / to /ui/ and answers browser navigations under /ui/ with index.html under a strict CSP, not cached', async () => {
    const root = await platform.fetch('/', { redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/ui/');
    for (const path of ['/ui/', '/ui/traces', '/ui/traces/trellis/default/0192-trace', '/ui/settings?tab=keys']) {
      const response = await platform.fetch(path, { headers: { accept: BROWSER_ACCEPT } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control'), path).toBe('no-cache');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      const html = await response.text();
      expect(html).toContain('<div id="root">');
      expect(html).not.toMatch(/https?:\/\//i); // nothing off-host
      for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) expect(script[2]!.trim()).toBe(''); // no inline script
    }
  });

  it('serves hashed assets as immutable, compressed when asked, and 404s unknown ones', async () => {
    const html = await (await platform.fetch('/ui/', { headers: { accept: BROWSER_ACCEPT } })).text();
    const urls = [...html.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(urls.some((url) => url.endsWith('.js'))).toBe(true);
    expect(urls.some((url) => url.endsWith('.css'))).toBe(true);
    for (const url of urls) {
      const response = await platform.fetch(url, { headers: { 'accept-encoding': 'gzip' } });
      expect(response.status, url).toBe(200);
      expect(response.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await response.arrayBuffer()).byteLength, url).toBeGreaterThan(50);
    }
    expect((await platform.fetch('/ui/assets/index-00000000.js')).status).toBe(404);
    // An API client (no HTML in Accept) gets 404 for an unknown path under /ui, not the page.
    expect((await platform.fetch('/ui/nothing', { headers: { accept: 'application/json' } })).status).toBe(404);
  });

  it('shadows none of the platform\'s mounts, even for browser navigations', async () => {
    const graphql = await platform.fetch('/graphql', { headers: { accept: BROWSER_ACCEPT } });
    expect(await graphql.text()).toContain('Trellis GraphQL explorer');
    expect((await platform.fetch('/healthz')).status).toBe(200);
    const docs = await platform.fetch('/docs', { headers: { accept: BROWSER_ACCEPT } });
    expect(await docs.text()).not.toContain('<div id="root">');
    const traces = await platform.fetch('/traces/health', { headers: { accept: BROWSER_ACCEPT } });
    expect(await traces.text()).not.toContain('<div id="root">');
    const metrics = await platform.fetch('/metrics');
    expect(metrics.status).toBe(200);
  });
});
