import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { prefersHtml } from './graphql-explorer.js';

/**
 * The dashboard (dashboard/, built by `npm start` into dist/dashboard): a single-page app under `/ui/`, a prefix no
 * API mount uses, so none of its client-side routes (`/ui/traces/...`) can shadow `/traces` (REST), `/graphql` or
 * any other mount. `GET /` redirects there.
 * - `/ui/assets/<name>-<hash>.<ext>`: Vite's content-hashed files, cacheable for good.
 * - any other `GET /ui/...` from a browser (Accept prefers text/html): index.html, `no-cache`, under a strict CSP.
 * The UI talks to the public graph only (`/graphql`, `/graphql/ws`).
 */
export const DASHBOARD_PREFIX = '/ui';

/** Like the explorer's: nothing off-host, no inline script or style element; `'self'` covers ws: to /graphql/ws. */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  contentType: string;
  body: Buffer;
  gzipped: Buffer | null;
}

interface Dashboard {
  index: Buffer;
  assets: Map<string, Asset>;
}

async function loadDashboard(dir: string): Promise<Dashboard> {
  const index = await readFile(join(dir, 'index.html'));
  const assets = new Map<string, Asset>();
  const names = await readdir(join(dir, 'assets')).catch(() => [] as string[]);
  for (const name of names) {
    const body = await readFile(join(dir, 'assets', name));
    const contentType = CONTENT_TYPES[extname(name)] ?? 'application/octet-stream';
    const compressible = /^(text\/|image\/svg|application\/json)/.test(contentType) && body.length > 1024;
    assets.set(name, { contentType, body, gzipped: compressible ? await promisify(gzip)(body) : null });
  }
  return { index, assets };
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trellis dashboard</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm start</code> (it builds the dashboard before the server starts),
or <code>npm run dashboard:build</code>. The GraphQL explorer is at <a href="/graphql">/graphql</a>.</p></main></body></html>
`;

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('content-security-policy', DASHBOARD_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('vary', 'accept');
}

export function registerDashboard(app: FastifyInstance, options: { dir: string }): void {
  let loading: Promise<Dashboard> | undefined;
  const dashboard = () => {
    loading ??= loadDashboard(options.dir).catch((error: unknown) => {
      loading = undefined; // not built yet: look again on the next request
      throw error;
    });
    return loading;
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${DASHBOARD_PREFIX}/`, 302));
  app.get(DASHBOARD_PREFIX, { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${DASHBOARD_PREFIX}/`, 302));

  app.get<{ Params: { file: string } }>(`${DASHBOARD_PREFIX}/assets/:file`, { schema: { hide: true } }, async (request, reply) => {
    const asset = await dashboard().then((loaded) => loaded.assets.get(request.params.file), () => undefined);
    if (!asset) return reply.callNotFound();
    const gzipped = asset.gzipped !== null && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    void reply
      .header('content-type', asset.contentType)
      // Vite puts the content's hash in every name under assets/: a new version is a new URL.
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding');
    if (gzipped) void reply.header('content-encoding', 'gzip');
    return reply.send(gzipped ? asset.gzipped : asset.body);
  });

  // The app's client-side routes: browser navigations get index.html; anything else (an API client, a missing
  // asset under another path) gets the platform's 404.
  app.get(`${DASHBOARD_PREFIX}/*`, { schema: { hide: true } }, async (request, reply) => {
    if (!prefersHtml(request.headers.accept)) return reply.callNotFound();
    try {
      const { index } = await dashboard();
      return pageHeaders(reply).send(index);
    } catch {
      return pageHeaders(reply).code(503).send(NOT_BUILT);
    }
  });
}
