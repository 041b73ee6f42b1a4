import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { signPrincipal } from '../../../platform/auth/internal-signature.js';
import { SUBGRAPHS } from '../../../subgraphs/index.js';
import { createTestDatabase } from '../../support/database.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { ADMIN_KEY } from '../../support/platform.js';

/**
 * The docker-compose topology as plain OS processes on loopback: one process per subgraph and a gateway process
 * that reaches them by URL, all on one PostgreSQL database.
 */
const processes: NodeProcess[] = [];
const subgraphUrls: Record<string, string> = {};
const secret = randomBytes(32).toString('hex');
let gatewayUrl: string;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  const common = { DATABASE_URL: databaseUrl, TRELLIS_INTERNAL_SECRET: secret, HOST: '127.0.0.1', TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY };
  for (const subgraph of SUBGRAPHS) {
    const port = await freePort();
    const service = spawnEntry('platform/serve-subgraph.ts', [subgraph.name], { ...common, PORT: String(port) });
    processes.push(service);
    subgraphUrls[subgraph.name] = `http://127.0.0.1:${port}/graphql`;
  }
  await Promise.all(
    SUBGRAPHS.map((subgraph, index) => waitForHttp(subgraphUrls[subgraph.name]!.replace('/graphql', '/healthz'), processes[index]!, 90_000)),
  );
  const port = await freePort();
  const gateway = spawnEntry('platform/main.ts', [], {
    ...common,
    PORT: String(port),
    TRELLIS_SUBGRAPH_URLS: Object.entries(subgraphUrls).map(([name, url]) => `${name}=${url}`).join(','),
  });
  processes.push(gateway);
  gatewayUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${gatewayUrl}/healthz`, gateway, 90_000);
}, 180_000);

afterAll(async () => {
  for (const process of processes) process.kill('SIGTERM');
  await Promise.all(processes.map((process) => process.exited));
});

async function graphql(url: string, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
  return { status: response.status, body: (await response.json()) as any };
}

describe('distributed topology', () => {
  it('runs a cross-subgraph query through the gateway process', async () => {
    const { status, body } = await graphql(
      `${gatewayUrl}/graphql`,
      '{ viewer { username } project(entity: "trellis", name: "default") { fullName callCount runCount trainingModelCount } team(name: "trellis") { webhookCount } }',
      { authorization: `Bearer ${ADMIN_KEY}` },
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      data: {
        viewer: { username: 'admin' },
        project: { fullName: 'trellis/default', callCount: 0, runCount: 0, trainingModelCount: 0 },
        team: { webhookCount: 0 },
      },
    });
  });

  it('carries authorization decisions across processes', async () => {
    const { body } = await graphql(`${gatewayUrl}/graphql`, '{ team(name: "trellis") { webhookCount } }');
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses callers of a subgraph port that lack the gateway\'s signed identity', async () => {
    const query = '{ _service { sdl } }';
    const unsigned = await graphql(subgraphUrls.tracing!, query);
    expect(unsigned.status).toBe(401);
    const forged = await graphql(subgraphUrls.tracing!, query, signPrincipal(null, 'not-the-secret'));
    expect(forged.status).toBe(401);
    const signed = await graphql(subgraphUrls.tracing!, query, signPrincipal(null, secret));
    expect(signed.status).toBe(200);
    expect(signed.body.data._service.sdl).toContain('callCount');
  });
});
