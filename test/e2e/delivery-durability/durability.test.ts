import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../../../subgraphs/automations/test/receiver.js';
import { createTestDatabase } from '../../support/database.js';
import { compiledEntry } from '../../support/processes.js';

/**
 * The platform runs as a child process (`server/main.ts`, from the run's compiled sources) on its own test database; the
 * receiver runs here. The child is SIGKILLed while deliveries are in flight (received, not yet answered), then
 * restarted on the same database.
 */
const ADMIN_KEY = 'durability-admin-key-0123456789';
const TAGS = Array.from({ length: 60 }, (_, i) => `t${String(i).padStart(2, '0')}`);

let databaseUrl: string;
let dataDir: string;
let receiver: Receiver;
let child: ChildProcess | undefined;
const children: ChildProcess[] = [];

async function startChild(): Promise<string> {
  const proc = spawn(process.execPath, [compiledEntry('server/main.ts')], {
    cwd: path.resolve(import.meta.dirname, '../../..'),
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // One platform process per child, as the tests say (npm start's default is a process per core): the SIGKILL
      // is then the platform's death itself, and the second test's pair is two processes, not two clusters of them.
      TRELLIS_PROCESSES: '1',
      TRELLIS_DATA_DIR: dataDir,
      TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY,
      TRELLIS_SECRET_KEY: 'ab'.repeat(32),
      TRELLIS_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      TRELLIS_WEBHOOK_TIMEOUT_MS: '1500',
      TRELLIS_WEBHOOK_RETRY_BASE_MS: '50',
      TRELLIS_WEBHOOK_CONCURRENCY: '8',
      TRELLIS_DB_POOL_SIZE: '10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  children.push(proc);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`platform did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Trellis is running at (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`platform exited with ${code}:\n${output}`)));
  });
}

async function gql(url: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as any;
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase('durable');
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-durable-'));
  receiver = await new Receiver().start();
  // Slow answers keep deliveries in flight (received, unanswered) when the platform is killed.
  receiver.responder = () => ({ status: 200, body: 'ok', delayMs: 300 });
});
afterAll(async () => {
  for (const proc of children) proc.kill('SIGKILL');
  await receiver?.close();
});

describe('delivery durability', () => {
  it('SIGKILL with deliveries in flight: after a restart every event is delivered at least once, duplicates with the same delivery id', async () => {
    const url = await startChild();
    const { createWebhook } = await gql(url, `mutation($u: String!) { createWebhook(input: {team: "trellis", name: "durable", endpointUrl: $u}) { id } }`, { u: receiver.url('/durable') });
    await gql(url, `mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id } }`, {
      input: { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', name: 'every-tag', event: { type: 'ADD_ARTIFACT_TAG' }, webhookId: createWebhook.id, payload: '{"tag": "${tag}"}' },
    });
    await gql(url, `mutation($tags: [String!]) { createArtifactVersion(input: {entity: "trellis", project: "default", collection: "d", tags: $tags}) { id } }`, { tags: TAGS });

    await receiver.waitFor(10, undefined, 30_000);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child!.kill('SIGKILL');
    await exited;
    const beforeRestart = receiver.requests.length;
    expect(beforeRestart).toBeLessThan(TAGS.length);

    await startChild();
    const deadline = Date.now() + 60_000;
    const tagsSeen = () => new Set(receiver.requests.map((r) => JSON.parse(r.body).tag));
    while (tagsSeen().size < TAGS.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect([...tagsSeen()].sort()).toEqual(TAGS);

    // One delivery id per event, however many times it was sent.
    const idsByTag = new Map<string, Set<string>>();
    for (const request of receiver.requests) {
      const tag = JSON.parse(request.body).tag as string;
      idsByTag.set(tag, (idsByTag.get(tag) ?? new Set()).add(String(request.headers['x-service-delivery'])));
    }
    for (const [tag, ids] of idsByTag) expect(ids.size, tag).toBe(1);
    expect(new Set([...idsByTag.values()].flatMap((ids) => [...ids])).size).toBe(TAGS.length);
    // Some deliveries were in flight at the kill and were sent again after the restart.
    expect(receiver.requests.length).toBeGreaterThan(TAGS.length);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      for (;;) {
        const { rows } = await client.query(`select status, count(*)::int as n from automations.deliveries group by status`);
        if (rows.length === 1 && rows[0].status === 'SUCCEEDED') {
          expect(rows[0].n).toBe(TAGS.length);
          break;
        }
        if (Date.now() > deadline) throw new Error(`deliveries not all succeeded: ${JSON.stringify(rows)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await client.end();
    }
  });

  it('two platform processes on one database send every delivery exactly once between them (SKIP LOCKED, one engine leader)', async () => {
    databaseUrl = await createTestDatabase('twoproc');
    receiver.responder = () => ({ status: 200, body: 'ok', delayMs: 20 });
    const first = await startChild();
    await startChild();
    const { createWebhook } = await gql(first, `mutation($u: String!) { createWebhook(input: {team: "trellis", name: "pair", endpointUrl: $u}) { id } }`, { u: receiver.url('/pair') });
    await gql(first, `mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id } }`, {
      input: { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', name: 'pair', event: { type: 'ADD_ARTIFACT_TAG' }, webhookId: createWebhook.id, payload: '{"tag": "${tag}"}' },
    });
    await gql(first, `mutation($tags: [String!]) { createArtifactVersion(input: {entity: "trellis", project: "default", collection: "d", tags: $tags}) { id } }`, { tags: TAGS });
    await receiver.waitFor(TAGS.length, (r) => r.path === '/pair', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = receiver.requests.filter((r) => r.path === '/pair');
    expect(sent).toHaveLength(TAGS.length);
    expect(new Set(sent.map((r) => r.headers['x-service-delivery'])).size).toBe(TAGS.length);
  });
});
