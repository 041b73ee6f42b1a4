import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { signPrincipal } from '../platform/auth/internal-signature.js';
import type { Principal } from '../platform/auth/principal.js';
import { createDatabase } from '../platform/db/connection.js';
import { freePort, startEmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { SUBGRAPHS } from '../subgraphs/index.js';
import { fmt, startService, summarize, waitUntilOk, type Service } from './support.js';

/**
 * Gateway overhead: the same GraphQL work (a) sent straight to the subgraph services, (b) through the in-process
 * gateway (`npm start` topology), (c) through the distributed gateway (one process per subgraph), all over HTTP
 * on loopback with one client connection, sequential requests, medians and p99 of one interleaved run.
 *   npm run build && node dist/bench/gateway-overhead.js
 */
const REQUESTS = Number(process.env.REQUESTS ?? 2000);
const KEY = 'bench-bootstrap-key-0123456789';
const secret = randomBytes(32).toString('hex');
const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-gw-'));
const postgres = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), ephemeral: true });
const services: Service[] = [];

try {
  const oneProcessDb = await createDatabase(postgres.url, 'one_process');
  const distributedDb = await createDatabase(postgres.url, 'distributed');
  const common = { TRELLIS_BOOTSTRAP_API_KEY: KEY, HOST: '127.0.0.1', TRELLIS_INTERNAL_SECRET: secret, TRELLIS_DATA_DIR: dir };

  const onePort = await freePort();
  services.push(startService('server/main.js', [], { ...common, DATABASE_URL: oneProcessDb, PORT: String(onePort) }));
  const subgraphUrls: Record<string, string> = {};
  for (const subgraph of SUBGRAPHS) {
    const port = await freePort();
    services.push(startService('server/serve-subgraph.js', [subgraph.name], { ...common, DATABASE_URL: distributedDb, PORT: String(port) }));
    subgraphUrls[subgraph.name] = `http://127.0.0.1:${port}`;
  }
  await Promise.all(Object.values(subgraphUrls).map((url) => waitUntilOk(`${url}/healthz`)));
  const distPort = await freePort();
  services.push(
    startService('server/main.js', [], {
      ...common,
      DATABASE_URL: distributedDb,
      PORT: String(distPort),
      TRELLIS_SUBGRAPH_URLS: Object.entries(subgraphUrls).map(([name, url]) => `${name}=${url}/graphql`).join(','),
    }),
  );
  await Promise.all([waitUntilOk(`http://127.0.0.1:${onePort}/healthz`), waitUntilOk(`http://127.0.0.1:${distPort}/healthz`)]);

  const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
  const principal = await viewerPrincipal(`http://127.0.0.1:${onePort}`);
  const signed = () => ({ 'content-type': 'application/json', ...signPrincipal(principal, secret) });

  const single = '{ project(entity: "trellis", name: "default") { fullName createdAt } }';
  const cross = '{ project(entity: "trellis", name: "default") { fullName createdAt callCount runCount } }';
  const entities = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Project { callCount runCount } } }';

  const pools = new Map<string, Pool>();
  const post = async (origin: string, urlPath: string, headers: Record<string, string>, body: unknown) => {
    let pool = pools.get(origin);
    if (!pool) pools.set(origin, (pool = new Pool(origin, { connections: 1 })));
    const response = await pool.request({ method: 'POST', path: urlPath, headers, body: JSON.stringify(body) });
    const json = (await response.body.json()) as { errors?: unknown };
    if (response.statusCode !== 200 || json.errors) throw new Error(`${origin}${urlPath}: ${response.statusCode} ${JSON.stringify(json)}`);
    return json;
  };

  const scenarios: Record<string, () => Promise<unknown>> = {
    'one subgraph · direct on identity service': () => post(subgraphUrls.identity!, '/graphql', signed(), { query: single }),
    'one subgraph · in-process gateway': () => post(`http://127.0.0.1:${onePort}`, '/graphql', auth, { query: single }),
    'one subgraph · distributed gateway': () => post(`http://127.0.0.1:${distPort}`, '/graphql', auth, { query: single }),
    'three subgraphs · direct (client does the fetches)': async () => {
      await post(subgraphUrls.identity!, '/graphql', signed(), { query: single });
      const representations = [{ __typename: 'Project', entity: 'trellis', name: 'default' }];
      await Promise.all([
        post(subgraphUrls.tracing!, '/graphql', signed(), { query: entities.replace(' runCount', ''), variables: { r: representations } }),
        post(subgraphUrls.registry!, '/graphql', signed(), { query: entities.replace('callCount ', ''), variables: { r: representations } }),
      ]);
    },
    'three subgraphs · in-process gateway': () => post(`http://127.0.0.1:${onePort}`, '/graphql', auth, { query: cross }),
    'three subgraphs · distributed gateway': () => post(`http://127.0.0.1:${distPort}`, '/graphql', auth, { query: cross }),
  };

  const samples = new Map<string, number[]>(Object.keys(scenarios).map((name) => [name, []]));
  for (const run of Object.values(scenarios)) for (let i = 0; i < 200; i += 1) await run(); // warm-up
  // Interleave scenarios so machine noise hits all of them alike.
  for (let i = 0; i < REQUESTS; i += 1) {
    for (const [name, run] of Object.entries(scenarios)) {
      const started = performance.now();
      await run();
      samples.get(name)!.push(performance.now() - started);
    }
  }
  console.log(`gateway overhead, ${REQUESTS} sequential requests per scenario over HTTP/1.1 keep-alive on loopback:`);
  console.log('scenario'.padEnd(52) + 'median'.padStart(10) + 'p99'.padStart(11));
  for (const [name, values] of samples) {
    const { median, p99 } = summarize(values);
    console.log(name.padEnd(52) + fmt(median).padStart(10) + fmt(p99).padStart(11));
  }
  await Promise.all([...pools.values()].map((pool) => pool.close()));
} finally {
  await Promise.all(services.map((service) => service.stop()));
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}

async function viewerPrincipal(origin: string): Promise<Principal> {
  const response = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { id username } }' }),
  });
  const { data } = (await response.json()) as { data: { viewer: { id: string; username: string } } };
  return { userId: data.viewer.id, username: data.viewer.username, isAdmin: true, apiKeyId: '', defaultEntity: 'trellis', teams: { trellis: 'ADMIN' }, projectAdmin: [], registryAdmin: [] };
}
