import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import { startProcessTopology, type ProcessTopology, type Replica, type ReplicatedService } from './process-topology.js';
import { lostWrites, Writer } from './writer.js';

/**
 * Issue #29's zero-downtime criterion: the distributed topology as processes (two gateways behind a balancer, two
 * replicas of every subgraph service, one PostgreSQL), every process restarted in turn with SIGTERM under a writer:
 * no request fails and every acknowledged write is there afterwards. A replica killed with SIGKILL under the writer
 * costs at most retryable 503s, and no acknowledged write.
 *
 * What makes a restart invisible is graceful shutdown's leave phase (platform/http/graceful-close.ts,
 * TRELLIS_SHUTDOWN_DELAY_MS): /readyz fails first, so the balancers stop choosing the process, and it goes on serving
 * for the delay with every response closing its connection, so clients (and the gateways, for services) move to the
 * other replica before it stops listening; the gateway retries a service's fetch that could not have run.
 */
let topology: ProcessTopology;
let writer: Writer;

beforeAll(async () => {
  topology = await startProcessTopology(await createTestDatabase());
  writer = new Writer(topology.url);
}, 300_000);

afterAll(async () => {
  await writer?.stop();
  await topology?.close();
});

/** SIGTERM, a clean exit, then the replacement on the same port, ready and seen ready by its balancer. */
async function restart(service: ReplicatedService, index: number): Promise<void> {
  const replica: Replica = service.replicas[index]!;
  const leaving = replica.process;
  leaving.kill('SIGTERM');
  const code = await Promise.race([leaving.exited, new Promise((resolve) => setTimeout(resolve, 30_000, 'still running'))]);
  if (code !== 0) throw new Error(`${replica.label} did not stop cleanly on SIGTERM (${String(code)}):\n${leaving.output()}`);
  replica.start();
  await replica.ready();
  await service.balancerSeesReady(index);
}

describe('rolling restart of the distributed topology', () => {
  it('restarts every process in turn with SIGTERM under a writer: no failed request, no lost acknowledged write', async () => {
    writer.start();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const restarted: string[] = [];
    for (const service of [...topology.services, topology.gateways]) {
      for (const index of [0, 1]) {
        await restart(service, index);
        restarted.push(service.replicas[index]!.label);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await writer.stop();

    expect(restarted).toHaveLength(14);
    console.info(`rolling restart: ${writer.requests} requests, ${writer.failures.length} failed; ${writer.startedCalls.size} calls, ${writer.runs.size} runs acknowledged`);
    expect(writer.failures).toEqual([]);
    // At one request per 50 ms through 14 restarts, there were many (a sanity floor, not a measure).
    expect(writer.requests).toBeGreaterThan(300);
    expect(await lostWrites(topology.url, writer)).toEqual({ calls: [], ends: [], runs: [] });
  }, 600_000);

  it('kills a tracing replica with SIGKILL under the writer: at most retryable 503s, no lost acknowledged write', async () => {
    const before = writer.requests;
    writer.start();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const tracing = topology.services.find((service) => service.name === 'tracing')!;
    tracing.replicas[0]!.process.kill('SIGKILL');
    await tracing.replicas[0]!.process.exited;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await writer.stop();

    expect(writer.requests - before).toBeGreaterThan(50);
    console.info(`SIGKILL: ${writer.requests - before} requests, ${writer.failures.length} failed: ${JSON.stringify(writer.failures)}`);
    // A request the killed replica was running is answered 503 UNAVAILABLE with Retry-After (the gateway does not
    // retry what may have run); nothing else may fail.
    for (const failure of writer.failures) {
      expect(failure).toMatchObject({ status: 503, retryAfter: '2' });
    }
    expect(await lostWrites(topology.url, writer)).toEqual({ calls: [], ends: [], runs: [] });
  }, 120_000);
});
