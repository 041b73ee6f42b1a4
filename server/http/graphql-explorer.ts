import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';

/**
 * The GraphQL explorer: GraphiQL, served by the platform itself at `GET /graphql` to browsers. Every file comes
 * from this process (GraphiQL's and React's UMD builds from node_modules, our page script from
 * `graphql-explorer/`), so it works offline and the page can carry a strict Content-Security-Policy (no inline
 * script, nothing off-host). GraphQL requests to `/graphql` — POST, or GET with `?query=` or without an HTML
 * Accept — still go to Apollo.
 */
export const EXPLORER_ASSETS_PATH = '/graphql/explorer/assets';

const GRAPHQL_PATH = '/graphql';
const JAVASCRIPT = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const SVG = 'image/svg+xml';

/**
 * `'self'` covers the page's `ws:`/`wss:` connection to `/graphql/ws` on the same host (CSP level 3). Styles: only
 * our stylesheets (GraphiQL styles elements through the CSSOM, which a CSP does not restrict); fonts are
 * `data:` URLs inside GraphiQL's stylesheet. The key form submits through our script only (`form-action 'none'`),
 * so the key can never end up in a URL.
 */
export const EXPLORER_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface AssetSource {
  /** Name in the URL before the content hash: `graphiql.js` is served as `graphiql.<hash>.js`. */
  name: string;
  path: () => string;
  contentType: string;
}

const requireFromHere = createRequire(import.meta.url);
const packageFile = (pkg: string, file: string) => () => join(dirname(requireFromHere.resolve(`${pkg}/package.json`)), file);
const ownFile = (file: string) => () => join(ownAssetsDir(), file);

// Order matters: the page includes scripts and stylesheets in this order (React before GraphiQL before ours).
const SOURCES: AssetSource[] = [
  { name: 'graphiql.css', path: packageFile('graphiql', 'graphiql.min.css'), contentType: CSS },
  { name: 'explorer.css', path: ownFile('explorer.css'), contentType: CSS },
  { name: 'react.js', path: packageFile('react', 'umd/react.production.min.js'), contentType: JAVASCRIPT },
  { name: 'react-dom.js', path: packageFile('react-dom', 'umd/react-dom.production.min.js'), contentType: JAVASCRIPT },
  // GraphiQL's UMD build bundles graphql-ws's client (used for `subscriptionUrl`); it expects window.React/ReactDOM.
  { name: 'graphiql.js', path: packageFile('graphiql', 'graphiql.min.js'), contentType: JAVASCRIPT },
  { name: 'explorer.js', path: ownFile('explorer.js'), contentType: JAVASCRIPT },
  { name: 'icon.svg', path: ownFile('icon.svg'), contentType: SVG },
];

/** `graphql-explorer/` next to this file in the sources; from dist/, the same folder in the repository. */
function ownAssetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    for (const candidate of [join(dir, 'graphql-explorer'), join(dir, 'server', 'http', 'graphql-explorer')]) {
      if (existsSync(join(candidate, 'explorer.js'))) return candidate;
    }
    dir = resolve(dir, '..');
  }
  throw new Error('GraphQL explorer files (server/http/graphql-explorer/) not found');
}

interface Asset {
  contentType: string;
  body: Buffer;
  gzipped: Buffer;
}

interface Explorer {
  page: string;
  /** By file name as it appears in the URL (content-hashed). */
  assets: Map<string, Asset>;
}

/** Files are read, hashed and compressed once, on the first request that needs them (about 4 MB in all). */
async function loadExplorer(): Promise<Explorer> {
  const assets = new Map<string, Asset>();
  const urls: { url: string; contentType: string }[] = [];
  for (const source of SOURCES) {
    const body = await readFile(source.path());
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const dot = source.name.lastIndexOf('.');
    const file = `${source.name.slice(0, dot)}.${hash}${source.name.slice(dot)}`;
    assets.set(file, { contentType: source.contentType, body, gzipped: await promisify(gzip)(body) });
    urls.push({ url: `${EXPLORER_ASSETS_PATH}/${file}`, contentType: source.contentType });
  }
  return { page: renderPage(urls), assets };
}

function renderPage(assets: { url: string; contentType: string }[]): string {
  const icons = assets.filter((asset) => asset.contentType === SVG).map((asset) => `<link rel="icon" href="${asset.url}" type="${SVG}">`);
  const styles = assets.filter((asset) => asset.contentType === CSS).map((asset) => `<link rel="stylesheet" href="${asset.url}">`);
  const scripts = assets.filter((asset) => asset.contentType === JAVASCRIPT).map((asset) => `<script src="${asset.url}" defer></script>`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trellis GraphQL explorer</title>
${icons.join('\n')}
${styles.join('\n')}
${scripts.join('\n')}
</head>
<body>
<main id="sign-in" class="sign-in" hidden>
  <form id="sign-in-form" method="post" autocomplete="off">
    <h1>Trellis GraphQL explorer</h1>
    <label for="api-key">API key</label>
    <input id="api-key" name="api-key" type="password" required spellcheck="false" autocomplete="off">
    <p class="hint">Kept in this browser tab only (session storage) and sent as <code>Authorization: Bearer</code>.</p>
    <p id="sign-in-error" class="error" role="alert" hidden></p>
    <button type="submit">Open the explorer</button>
  </form>
</main>
<div id="explorer" class="explorer" hidden>
  <header class="bar">
    <span class="title">Trellis GraphQL explorer</span>
    <span id="signed-in-as" class="who"></span>
    <button id="sign-out" type="button">Sign out</button>
  </header>
  <div id="graphiql" class="graphiql"></div>
</div>
<noscript>The GraphQL explorer needs JavaScript. GraphQL clients can POST to ${GRAPHQL_PATH}.</noscript>
</body>
</html>
`;
}

/** A browser navigating to /graphql (HTML preferred over JSON) without an operation in the URL. */
function wantsExplorerPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  const query = request.query as Record<string, unknown> | undefined;
  if (query && query.query !== undefined) return false;
  return prefersHtml(request.headers.accept);
}

/** True when text/html has a positive quality at least that of JSON (browsers: `text/html,…,*\/*;q=0.8`). */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    const mediaType = type.trim();
    if (mediaType === 'text/html') html = Math.max(html, q);
    else if (mediaType === 'application/json' || mediaType === 'application/graphql-response+json' || mediaType === '*/*' || mediaType === 'application/*') {
      json = Math.max(json, q);
    }
  }
  return html > 0 && html >= json;
}

/**
 * Serves the explorer's assets, and its page on Apollo's `GET /graphql` route. The route is Apollo's
 * (@as-integrations/fastify registers GET/POST/OPTIONS /graphql as one route), so the page is an onRequest hook
 * added to that route when it is registered: call this before the gateway is mounted. Other routes pay nothing.
 */
export function registerGraphqlExplorer(app: FastifyInstance): void {
  let loading: Promise<Explorer> | undefined;
  const explorer = () => {
    loading ??= loadExplorer().catch((error: unknown) => {
      loading = undefined; // a missing file is a deployment problem; retry on the next request once fixed
      throw error;
    });
    return loading;
  };

  const servePage: onRequestHookHandler = (request, reply, done) => {
    if (!wantsExplorerPage(request)) return done();
    explorer().then(
      ({ page }) => {
        void reply
          .header('content-type', 'text/html; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('content-security-policy', EXPLORER_CONTENT_SECURITY_POLICY)
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer')
          .header('x-frame-options', 'DENY')
          .header('vary', 'accept')
          .send(page);
      },
      (error: unknown) => done(error as Error),
    );
  };

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url !== GRAPHQL_PATH || !methods.includes('GET')) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [servePage, ...existing];
  });

  app.get<{ Params: { file: string } }>(`${EXPLORER_ASSETS_PATH}/:file`, { schema: { hide: true } }, async (request, reply) => {
    const asset = (await explorer()).assets.get(request.params.file);
    if (!asset) return reply.callNotFound();
    const gzipped = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    void reply
      .header('content-type', asset.contentType)
      // The name carries the content's hash: a new version is a new URL.
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding');
    if (gzipped) void reply.header('content-encoding', 'gzip');
    return reply.send(gzipped ? asset.gzipped : asset.body);
  });
}
