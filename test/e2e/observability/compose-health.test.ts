import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { SUBGRAPHS } from '../../../subgraphs/index.js';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';
import { REPO_ROOT } from '../../support/processes.js';

/**
 * docker-compose.yml's health checks: every Trellis container checks its /readyz, the gateway starts once every
 * subgraph service is healthy, and the check's command itself (run here as the container runs it, with PORT set)
 * passes against a ready platform and fails where nothing answers.
 */
interface ComposeService {
  command?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
// Trellis's own containers: not PostgreSQL, nor the HAProxy balancer in front of the gateways (test/foundation/docker-compose.test.ts).
const trellisServices = Object.entries(compose.services).filter(([name]) => name !== 'postgres' && name !== 'balancer');

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
}, 120_000);
afterAll(async () => {
  await platform?.close();
});

/** Runs a compose health check's CMD here, with the container's PORT; resolves with its exit code. */
function runHealthcheck(test: string[], port: number): Promise<number | null> {
  expect(test[0]).toBe('CMD');
  const [command, ...args] = test.slice(1) as [string, ...string[]];
  const child = spawn(command === 'node' ? process.execPath : command, args, { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('docker-compose health checks', () => {
  it('every Trellis service has one on /readyz, and the gateway waits for every subgraph service to be healthy', () => {
    expect(trellisServices.map(([name]) => name).sort()).toEqual([...SUBGRAPHS.map((subgraph) => subgraph.name), 'gateway'].sort());
    for (const [name, service] of trellisServices) {
      expect(service.healthcheck?.test.join(' '), name).toContain('/readyz');
      expect(service.depends_on?.postgres, name).toEqual({ condition: 'service_healthy' });
    }
    const gateway = compose.services.gateway!;
    for (const subgraph of SUBGRAPHS) expect(gateway.depends_on?.[subgraph.name], subgraph.name).toEqual({ condition: 'service_healthy' });
  });

  it("the check's command passes against a ready service and fails where none answers", async () => {
    const test = compose.services.gateway!.healthcheck!.test;
    const port = Number(new URL(platform.url).port);
    expect(await runHealthcheck(test, port)).toBe(0);
    expect(await runHealthcheck(test, await freePort())).toBe(1);
  });
});
