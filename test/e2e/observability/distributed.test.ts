import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../../../platform/db/embedded-postgres.js';
import { SUBGRAPHS } from '../../../subgraphs/index.js';
import { TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { ADMIN_KEY } from '../../support/platform.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { parsePrometheusText, samplesOf } from './prometheus-text.js';
import { promtoolProblems } from './promtool.js';

/**
 * The docker-compose topology as OS processes on loopback — a service per subgraph and a gateway, on a PostgreSQL of
 * this file's own (so it can be stopped) — watched as an operator would: every service's /metrics and /readyz,
 * PostgreSQL stopped and started again, and a second gateway configured with another TRELLIS_INTERNAL_SECRET.
 */
const secret = randomBytes(32).toString('hex');
const services = new Map<string, { url: string; process: NodeProcess }>();
let gateway: { url: string; process: NodeProcess };
let misconfigured: { url: string; process: NodeProcess };
let postgres: RunningPostgres;
let postgresDir: string;
let postgresPort: number;
let dataDir: string;

const startPostgres = () => startEmbeddedPostgres({ dataDir: postgresDir, port: postgresPort, ephemeral: true });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-observability-'));
  postgresDir = path.join(dataDir, 'postgres');
  postgresPort = await freePort();
  postgres = await startPostgres();
  const common = {
    ...TEST_ENV,
    DATABASE_URL: postgres.url,
    TRELLIS_INTERNAL_SECRET: secret,
    HOST: '127.0.0.1',
    TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY,
    TRELLIS_DATA_DIR: dataDir,
    TRELLIS_EMBEDDED_MODEL: 'off',
  };
  const ports = new Set<number>();
  const port = async () => {
    let candidate = await freePort();
    while (ports.has(candidate)) candidate = await freePort();
    ports.add(candidate);
    return candidate;
  };
  for (const subgraph of SUBGRAPHS) {
    const servicePort = await port();
    const process = spawnEntry('server/serve-subgraph.ts', [subgraph.name], { ...common, PORT: String(servicePort) });
    services.set(subgraph.name, { url: `http://127.0.0.1:${servicePort}`, process });
  }
  await Promise.all([...services.values()].map(({ url, process }) => waitForHttp(`${url}/healthz`, process, 120_000)));
  const subgraphUrls = [...services].map(([name, { url }]) => `${name}=${url}/graphql`).join(',');
  const startGateway = async (internalSecret: string) => {
    const gatewayPort = await port();
    const process = spawnEntry('server/main.ts', [], { ...common, TRELLIS_INTERNAL_SECRET: internalSecret, PORT: String(gatewayPort), TRELLIS_SUBGRAPH_URLS: subgraphUrls });
    return { url: `http://127.0.0.1:${gatewayPort}`, process };
  };
  gateway = await startGateway(secret);
  misconfigured = await startGateway(randomBytes(32).toString('hex'));
  await Promise.all([waitForHttp(`${gateway.url}/healthz`, gateway.process, 120_000), waitForHttp(`${misconfigured.url}/healthz`, misconfigured.process, 120_000)]);
}, 240_000);

afterAll(async () => {
  const processes = [...services.values(), gateway, misconfigured].filter(Boolean).map(({ process }) => process);
  for (const process of processes) process.kill('SIGTERM');
  await Promise.all(processes.map((process) => process.exited));
  await postgres?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function readyz(url: string): Promise<{ status: number; body: { status: string; failing?: string[]; checks: { check: string; ok: boolean; code?: string; reason?: string }[] } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as any };
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Log lines (JSON) of a process that contain every one of `parts`. */
function logLines(process: NodeProcess, ...parts: string[]): string[] {
  return process.output().split('\n').filter((line) => parts.every((part) => line.includes(part)));
}

describe('observing the distributed topology', () => {
  it('every service serves /metrics in the text format, each series labelled with its service and process 0', async () => {
    const targets = [...[...services].map(([name, { url }]) => ({ name, url })), { name: 'gateway', url: gateway.url }];
    const exposition = new Map<string, ReturnType<typeof samplesOf>>();
    for (const { name, url } of targets) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200); // so request latency has a series
      const response = await fetch(`${url}/metrics`);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      const samples = samplesOf(parsePrometheusText(text));
      expect(await promtoolProblems(text), name).toEqual([]);
      expect(samples.length, name).toBeGreaterThan(50);
      for (const sample of samples) expect(sample.labels, `${name}: ${sample.name}`).toMatchObject({ service: name, process: '0' });
      expect(samples.some((sample) => sample.name === 'trellis_http_request_duration_seconds_count' && sample.labels.route === '/healthz'), name).toBe(true);
      exposition.set(name, samples);
    }
    const has = (service: string, name: string, labels: Record<string, string> = {}) =>
      exposition.get(service)!.some((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value));
    // The background workers' metrics, on the service each runs in.
    expect(has('automations', 'trellis_webhook_delivery_attempts_total', { outcome: 'succeeded' })).toBe(true);
    expect(has('automations', 'trellis_automation_engine_lag_seconds')).toBe(true);
    expect(has('training', 'trellis_training_queue_jobs', { state: 'pending' })).toBe(true);
    expect(has('tracing', 'trellis_event_consumer_lag_seconds', { consumer: 'tracing-inference-calls' })).toBe(true);
    expect(has('registry', 'trellis_event_consumer_lag_seconds', { consumer: 'registry-training-runs' })).toBe(true);
    expect(has('inference', 'trellis_event_consumer_lag_seconds', { consumer: 'inference-training-usage' })).toBe(true);
    // No consumer runs in the gateway: none of their series there.
    expect(has('gateway', 'trellis_event_consumer_lag_seconds')).toBe(false);
  });

  it('every service is ready, and the gateway says which subgraph services it checked', async () => {
    for (const [name, { url }] of services) {
      expect(await readyz(url), name).toEqual({ status: 200, body: { status: 'ready', checks: [{ check: 'database', ok: true }] } });
    }
    const { status, body } = await readyz(gateway.url);
    expect(status).toBe(200);
    expect(body.checks.map((check) => check.check).sort()).toEqual(['database', ...SUBGRAPHS.map((subgraph) => `subgraph ${subgraph.name}`)].sort());
    expect(body.checks.every((check) => check.ok)).toBe(true);
  });

  it('a gateway with another internal secret: not ready naming the mismatch, an outage (not a bad key) for its clients, logged once by both sides', async () => {
    for (let scrape = 0; scrape < 3; scrape++) {
      const { status, body } = await readyz(misconfigured.url);
      expect(status).toBe(503);
      expect(body.failing!.sort()).toEqual(SUBGRAPHS.map((subgraph) => `subgraph ${subgraph.name}`).sort());
      for (const check of body.checks.filter((one) => !one.ok)) {
        expect(check.code).toBe('INTERNAL_SECRET_MISMATCH');
        expect(check.reason).toContain('TRELLIS_INTERNAL_SECRET differs');
      }
    }
    for (let request = 0; request < 3; request++) {
      const response = await fetch(`${misconfigured.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({ query: '{ viewer { username } }' }),
      });
      const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
      // Before: UNAUTHENTICATED, as for an unknown key. The key is good; the platform is misconfigured.
      expect(body.errors?.[0]?.extensions?.code).toBe('UNAVAILABLE');
      expect(response.status).toBe(503);
    }
    // The gateway names the misconfiguration once per service and interval, however often it is probed or asked.
    for (const subgraph of SUBGRAPHS) {
      expect(logLines(misconfigured.process, '"code":"INTERNAL_SECRET_MISMATCH"', `"subgraph":"${subgraph.name}"`, 'TRELLIS_INTERNAL_SECRET differs'), subgraph.name).toHaveLength(1);
    }
    expect(logLines(misconfigured.process, '"level":50', 'INTERNAL_SECRET_MISMATCH')).toHaveLength(SUBGRAPHS.length);
    // So does the service refusing it (identity: probed and asked three times).
    expect(logLines(services.get('identity')!.process, '"code":"INTERNAL_SECRET_MISMATCH"', 'signed with another internal secret')).toHaveLength(1);
    // The well-configured gateway is unaffected.
    expect((await readyz(gateway.url)).status).toBe(200);
    const good = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ query: '{ viewer { username } }' }),
    });
    expect(await good.json()).toEqual({ data: { viewer: { username: 'admin' } } });
  });

  it('PostgreSQL stopped: every service fails /readyz naming the database and stays alive; started again: ready again, nothing restarted', async () => {
    const everyService = [...[...services].map(([name, { url }]) => ({ name, url })), { name: 'gateway', url: gateway.url }];
    await postgres.stop();
    try {
      for (const { name, url } of everyService) {
        const { status, body } = await until(`${name} to notice`, () => readyz(url), (answer) => answer.status !== 200, 15_000);
        expect(status, name).toBe(503);
        expect(body.failing, name).toEqual(['database']);
        expect(body.checks.find((check) => check.check === 'database')!.code, name).toBe('DATABASE_UNAVAILABLE');
        expect((await fetch(`${url}/healthz`)).status, name).toBe(200);
      }
    } finally {
      postgres = await startPostgres();
    }
    for (const { name, url } of everyService) {
      const { body } = await until(`${name} to be ready again`, () => readyz(url), (answer) => answer.status === 200, 60_000);
      expect(body.status, name).toBe('ready');
    }
    for (const { process } of [...services.values(), gateway]) expect(process.child.exitCode).toBeNull();
  }, 120_000);
});
