/**
 * Family D benchmark: platform event committed → webhook received latency, and deliveries per second, with one
 * and with two worker processes; each figure next to an in-run baseline (raw loopback HTTP, raw LISTEN/NOTIFY).
 *
 *   npm run build && node dist/bench/webhook-delivery.js
 *
 * PostgreSQL: DATABASE_URL (a server URL; a fresh database is created) or an embedded server in a temp dir.
 * Worker processes run `dist/server/serve-subgraph.js automations` (automation engine + delivery worker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { Agent, request } from 'undici';
import { loadConfig } from '../platform/config.js';
import { connectDatabase, createDatabase } from '../platform/db/connection.js';
import { startEmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { publishEvent } from '../platform/events/index.js';
import { createLogger } from '../platform/logger.js';
import { automationsSubgraph } from '../subgraphs/automations/index.js';
import type { AutomationsServices } from '../subgraphs/automations/services.js';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 300);
const WAIT_MS = Number(process.env.BENCH_WAIT_MS ?? 120_000);
const LATENCY_INTERVAL_MS = 10;
const THROUGHPUT_EVENTS = Number(process.env.BENCH_THROUGHPUT_EVENTS ?? 500);
const FANOUT = 10;
const SECRET_KEY = 'cd'.repeat(32);
const here = path.dirname(fileURLToPath(import.meta.url));

interface Stats {
  p50: number;
  p99: number;
  n: number;
}
function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), n: sorted.length };
}
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Loopback receiver: records when each body's sequence number arrived. */
class Receiver {
  readonly arrivals = new Map<string, number>();
  /** Requests per sequence-number prefix ("w1-tp", "w2-lat", ...), duplicates included. */
  readonly perPrefix = new Map<string, number>();
  count = 0;
  readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = performance.now();
      const seq = /"seq":"([^"]*)"/.exec(Buffer.concat(chunks).toString())?.[1] ?? '';
      if (!this.arrivals.has(seq)) this.arrivals.set(seq, now);
      const prefix = seq.split('-').slice(0, 2).join('-');
      this.perPrefix.set(prefix, (this.perPrefix.get(prefix) ?? 0) + 1);
      this.count += 1;
      this.check?.();
      res.writeHead(200).end('ok');
    });
  });
  url = '';
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  private check: (() => void) | undefined;
  /** Resolves when `done()` holds (checked on every request), or rejects after the time limit. */
  until(done: () => boolean, describe: () => string, timeoutMs = WAIT_MS): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.check = undefined;
        reject(new Error(`receiver: ${describe()}`));
      }, timeoutMs);
      this.check = () => {
        if (!done()) return;
        this.check = undefined;
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

function startWorker(databaseUrl: string, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(here, '../server/serve-subgraph.js'), 'automations'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      TRELLIS_DATA_DIR: dataDir,
      TRELLIS_SECRET_KEY: SECRET_KEY,
      TRELLIS_WEBHOOK_ALLOW_CIDRS: '127.0.0.0/8',
      TRELLIS_WEBHOOK_CONCURRENCY: '128',
      TRELLIS_DB_POOL_SIZE: '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (/"level":(40|50|60)/.test(line)) process.stderr.write(`[worker] ${line.slice(0, 600)}\n`);
      if (output.includes('subgraph service listening')) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`worker exited (${code}):\n${output.slice(-2000)}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function main() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-d-'));
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
  const serverUrl = process.env.DATABASE_URL ?? embedded!.url;
  const databaseUrl = await createDatabase(serverUrl, `bench_d_${Date.now()}`);
  const receiver = new Receiver();
  await receiver.start();
  const logger = createLogger({ level: 'warn' });
  const db = connectDatabase(databaseUrl, { max: 10 });
  const config = loadConfig({ DATABASE_URL: databaseUrl, TRELLIS_DATA_DIR: tmp, TRELLIS_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'warn' });
  // Set-up through the subgraph's own services (no workers in this process).
  const automations = await automationsSubgraph.start({ db, config, logger }, { workers: false });
  const services = automations.services as AutomationsServices;
  await services.secrets.create('bench', 'SIGNING', 'bench-signing-secret-0123456789');
  await services.secrets.create('bench', 'TOKEN', 'bench-access-token-0123456789');
  const webhook = await services.webhooks.create({ team: 'bench', name: 'receiver', endpointUrl: receiver.url, accessTokenSecret: 'TOKEN', signingSecret: 'SIGNING' });
  const payload = '{"seq":"${artifact_collection_name}","tag":"${tag}","author":"${event_author}","version":"${artifact_version}"}';
  // Written straight into the automations tables: createAutomation asks identity (through the gateway) whether
  // project bench/p exists, and this bench runs neither.
  const automation = (name: string, tagRegex: string) =>
    services.store.insertAutomation({
      team: 'bench',
      name,
      description: null,
      scope_kind: 'PROJECT',
      scope_name: 'p',
      event_type: 'ADD_ARTIFACT_TAG',
      event_filter: { type: 'ADD_ARTIFACT_TAG', tagRegex },
      run_filter: { user: null, runNameRegex: null },
      webhook_id: webhook.id,
      payload_template: payload,
      enabled: true,
      created_by: 'bench',
    });
  await automation('latency', '^lat$');
  for (let i = 0; i < FANOUT; i++) await automation(`fanout-${i}`, '^tp$');

  const publish = (seq: string, tag: string) =>
    db.root.transaction().execute((trx) =>
      publishEvent(trx, {
        type: 'ADD_ARTIFACT_TAG',
        entity: 'bench',
        project: 'p',
        author: 'bench',
        payload: { tag, collection: seq, artifactVersion: { id: seq, name: `c:${seq}`, metadata: { seq } } },
      }),
    );

  // Baseline 1: raw loopback HTTP POSTs from this process (the floor of any webhook delivery).
  const agent = new Agent({ connections: 128 });
  const rawLatencies: number[] = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const started = performance.now();
    const response = await request(receiver.url, { method: 'POST', body: `{"seq":"raw-${i}"}`, dispatcher: agent });
    await response.body.text();
    rawLatencies.push(performance.now() - started);
  }
  const rawTotal = FANOUT * THROUGHPUT_EVENTS;
  const rawStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 128 }, async () => {
      while (next < rawTotal) {
        next += 1;
        const response = await request(receiver.url, { method: 'POST', body: '{"seq":"raw"}', dispatcher: agent });
        await response.body.text();
      }
    }),
  );
  const rawRate = rawTotal / ((performance.now() - rawStarted) / 1000);
  await agent.close();

  // Baseline 2: raw LISTEN/NOTIFY commit → notification latency.
  const listener = new pg.Client({ connectionString: databaseUrl });
  await listener.connect();
  await listener.query('LISTEN bench_baseline');
  const notifyLatencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const got = new Promise<number>((resolve) => listener.once('notification', () => resolve(performance.now())));
    await db.root.transaction().execute(async (trx) => {
      await trx.selectNoFrom((eb) => eb.fn('pg_notify', [eb.val('bench_baseline'), eb.val(String(i))]).as('n')).execute();
    });
    const committed = performance.now();
    notifyLatencies.push((await got) - committed);
  }
  await listener.end();

  const results: Record<string, { latency: Stats; rate: number; duplicates: number }> = {};
  for (const workers of [1, 2]) {
    const children: ChildProcess[] = [];
    for (let i = 0; i < workers; i++) children.push(await startWorker(databaseUrl, tmp));
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Latency: paced single events, one automation each; commit time → arrival time (same clock).
    const committedAt = new Map<string, number>();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      const seq = `w${workers}-lat-${i}`;
      await publish(seq, 'lat');
      committedAt.set(seq, performance.now());
      await new Promise((resolve) => setTimeout(resolve, LATENCY_INTERVAL_MS));
    }
    const allArrived = () => [...committedAt.keys()].every((seq) => receiver.arrivals.has(seq));
    await receiver.until(allArrived, () => `${[...committedAt.keys()].filter((seq) => !receiver.arrivals.has(seq)).length} latency events missing`).catch(async (error) => {
      const pending = await db.root.selectFrom('automations.deliveries').select(['status', 'attempts', 'last_error', 'next_attempt_at', 'lease_until']).where('status', '!=', 'SUCCEEDED').execute();
      const cursor = await db.root.selectFrom('automations.engine_cursors').selectAll().execute();
      const events = await db.root.selectFrom('platform_events.events').select(['id', 'tx_id']).orderBy('id', 'desc').limit(3).execute();
      const count = await db.root.selectFrom('automations.deliveries').select((eb) => eb.fn.countAll().as('n')).execute();
      const missing = await db.root
        .selectFrom('platform_events.events as e')
        .select(['e.id', 'e.tx_id', 'e.created_at'])
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('automations.deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))))
        .execute();
      console.error({ missing });
      console.error({ pending, cursor, events, count });
      throw error;
    });
    const latencies = [...committedAt].filter(([seq]) => receiver.arrivals.has(seq)).map(([seq, at]) => receiver.arrivals.get(seq)! - at);
    if (latencies.length < committedAt.size) process.stderr.write(`warning: ${committedAt.size - latencies.length} latency events not received\n`);

    // Throughput: a burst of events, each fanning out to FANOUT automations.
    const started = performance.now();
    const writers = 4;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = w; i < THROUGHPUT_EVENTS; i += writers) await publish(`w${workers}-tp-${i}`, 'tp');
      }),
    );
    const prefix = `w${workers}-tp`;
    const total = THROUGHPUT_EVENTS * FANOUT;
    await receiver.until(() => (receiver.perPrefix.get(prefix) ?? 0) >= total, () => `${receiver.perPrefix.get(prefix) ?? 0} of ${total} deliveries`);
    const rate = (THROUGHPUT_EVENTS * FANOUT) / ((performance.now() - started) / 1000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const duplicates = (receiver.perPrefix.get(prefix) ?? 0) - total + (receiver.perPrefix.get(`w${workers}-lat`) ?? 0) - LATENCY_EVENTS;
    results[workers] = { latency: stats(latencies), rate, duplicates };
    if (process.env.BENCH_DIAG) {
      const { rows } = await sql<Record<string, number>>`
        select percentile_cont(0.5) within group (order by extract(epoch from d.created_at - e.created_at) * 1000) as engine_lag_ms,
               percentile_cont(0.5) within group (order by extract(epoch from a.started_at - d.created_at) * 1000) as pickup_lag_ms,
               percentile_cont(0.5) within group (order by extract(epoch from a.finished_at - a.started_at) * 1000) as attempt_ms
        from automations.deliveries d join platform_events.events e on e.id = d.event_id
        join automations.delivery_attempts a on a.delivery_id = d.id
        where e.payload->>'tag' = 'lat'`.execute(db.root);
      process.stderr.write(`diag ${workers} workers: ${JSON.stringify(rows[0])}\n`);
      await sql`truncate automations.delivery_attempts, automations.deliveries`.execute(db.root);
    }
    for (const child of children) await stopWorker(child);
  }

  const raw = stats(rawLatencies);
  const notify = stats(notifyLatencies);
  const lines = [
    `Family D webhook delivery benchmark (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'})`,
    '',
    '| Measure | p50 | p99 | n |',
    '|---|---|---|---|',
    `| baseline: raw loopback HTTP POST round trip | ${ms(raw.p50)} | ${ms(raw.p99)} | ${raw.n} |`,
    `| baseline: raw NOTIFY commit → LISTEN received | ${ms(notify.p50)} | ${ms(notify.p99)} | ${notify.n} |`,
    ...[1, 2].map((w) => `| event committed → webhook received, ${w} worker process${w > 1 ? 'es' : ''} | ${ms(results[w]!.latency.p50)} | ${ms(results[w]!.latency.p99)} | ${results[w]!.latency.n} |`),
    '',
    '| Throughput | deliveries/s | vs raw HTTP |',
    '|---|---|---|',
    `| baseline: raw loopback HTTP POSTs, 128 concurrent | ${rawRate.toFixed(0)} | 1.00 |`,
    ...[1, 2].map((w) => `| signed deliveries (${THROUGHPUT_EVENTS} events × ${FANOUT} automations), ${w} worker process${w > 1 ? 'es' : ''} | ${results[w]!.rate.toFixed(0)} | ${(results[w]!.rate / rawRate).toFixed(2)} |`),
    '',
    `Duplicate sends (same delivery id, at-least-once): 1 worker ${results[1]!.duplicates}, 2 workers ${results[2]!.duplicates}`,
    `Latency ratio to raw HTTP p50: 1 worker ${(results[1]!.latency.p50 / raw.p50).toFixed(1)}×, 2 workers ${(results[2]!.latency.p50 / raw.p50).toFixed(1)}×`,
  ];
  process.stdout.write(lines.join('\n') + '\n');

  await automations.stop();
  await db.close();
  receiver.server.close();
  await embedded?.stop();
  await rm(tmp, { recursive: true, force: true });
}

await main();
