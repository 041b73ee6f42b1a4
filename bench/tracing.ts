/**
 * Family A benchmark: ingestion (/call/start, /call/upsert_batch) and /feedback/aggregate, each printed next to a
 * baseline measured in the same run against the same PostgreSQL (rows inserted straight through `pg`; the same
 * aggregation as hand-written SQL).
 *
 *   npm run build && LOG_LEVEL=warn node dist/bench/tracing.js [--seconds 10] [--only ingest|aggregate]
 *
 * The platform runs in a child process (`dist/server/main.js`) so that the load generator and the baselines in
 * this process do not share its event loop. PostgreSQL: DATABASE_URL (a server URL) or an embedded cluster in a
 * temp dir. With DATABASE_URL, each run's database (trellis_bench_<time>) is kept on that server, and
 * `--only aggregate --reuse-db trellis_bench_<time>` measures again on its seeded rows without seeding anew.
 *
 * BENCH_PLATFORM_MAIN runs another build's `dist/server/main.js` as the platform (the same load and baselines against
 * two versions, e.g. a worktree of main). Each REST load also prints the platform's CPU time per request (Linux:
 * /proc; the process started and its node descendants, i.e. with TRELLIS_PROCESSES a cluster's primary and its
 * workers together), which other work on a shared machine disturbs less than throughput.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { uuidv7 } from 'uuidv7';
import { createDatabase } from '../platform/db/connection.js';
import { freePort, startEmbeddedPostgres, type RunningPostgres } from '../platform/db/embedded-postgres.js';
import { fmt, runLoad, timeRuns, type LoadResult } from './load.js';
import { readProcessTree, servingProcesses, usedBetween, type TreeReading } from './process-cpu.js';
import { PLATFORM_NODE_FLAGS } from '../server/node-flags.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1]! : fallback;
};
const SECONDS = Number(option('seconds', '8'));
const ONLY = option('only', 'all');
const REUSE_DB = option('reuse-db', '');
if (REUSE_DB && !process.env.DATABASE_URL) throw new Error('--reuse-db needs DATABASE_URL (the server that holds the database)');

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
const KEY = 'bench-admin-key-0123456789abcdefghijkl';
const AUTH = `Basic ${Buffer.from(`api:${KEY}`).toString('base64')}`;
const POOL_SIZE = 20; // the platform's default TRELLIS_DB_POOL_SIZE; the baselines use the same

const here = path.dirname(fileURLToPath(import.meta.url));

async function main() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-'));
  // Ctrl-C during ingestion skips the aggregation stage; the finally block then stops the platform child and
  // the embedded PostgreSQL.
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      console.error(`\n${signal}: stopping`);
    });
  }
  let embedded: RunningPostgres | undefined;
  let child: ChildProcess | undefined;
  let db: pg.Pool | undefined;
  try {
    let serverUrl = process.env.DATABASE_URL;
    if (!serverUrl) {
      embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
      serverUrl = embedded.url;
    }
    // --reuse-db NAME: a database an earlier run seeded on DATABASE_URL's server (benchmark databases are kept there).
    const databaseUrl = REUSE_DB ? withDatabase(serverUrl, REUSE_DB) : await createDatabase(serverUrl, `trellis_bench_${Date.now()}`);
    if (REUSE_DB) console.log(`(reusing database ${REUSE_DB})`);
    const port = await freePort();
    // With `npm start`'s Node flags; BENCH_PLATFORM_NODE_ARGS come after them and win (e.g. "--cpu-prof
    // --cpu-prof-dir=/tmp/prof" profiles the platform process).
    const nodeArgs = [...PLATFORM_NODE_FLAGS, ...(process.env.BENCH_PLATFORM_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    const platformMain = process.env.BENCH_PLATFORM_MAIN ?? path.join(here, '../server/main.js');
    child = spawn(process.execPath, [...nodeArgs, platformMain], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
        TRELLIS_BOOTSTRAP_API_KEY: KEY,
        TRELLIS_DATA_DIR: path.join(tmp, 'data'),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHealthy(baseUrl);
    db = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE });
    const http = new HttpPool(baseUrl, { connections: 64, pipelining: 1 });
    const post = async (route: string, body: unknown) => {
      const response = await http.request({
        method: 'POST',
        path: `/traces${route}`,
        headers: { 'content-type': 'application/json', authorization: AUTH },
        body: JSON.stringify(body),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${route}: ${response.statusCode} ${text.slice(0, 300)}`);
      return text;
    };
    console.log(`Family A benchmark — Node ${process.version}, ${os.cpus().length} CPUs, ${SECONDS}s per load run, LOG_LEVEL=${process.env.LOG_LEVEL ?? 'warn'}`);
    if (process.env.BENCH_PLATFORM_MAIN) console.log(`platform: ${platformMain}`);
    platformPid = child.pid;
    const fetchHealth = async () => {
      const response = await http.request({ method: 'GET', path: '/traces/health', headers: { authorization: AUTH } });
      await response.body.text();
      return response.statusCode;
    };
    if (ONLY === 'all' || ONLY === 'ingest') await ingestion(post, db, fetchHealth);
    if ((ONLY === 'all' || ONLY === 'aggregate') && !interrupted) await aggregation(post, db);
    await http.close();
  } finally {
    await db?.end().catch(() => undefined);
    if (child) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    await embedded?.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

async function waitForHealthy(url: string) {
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('platform did not become healthy');
}

/** One call start as the Weave SDK sends it (a few hundred bytes). */
function callStart(projectId: string, id?: string) {
  return {
    project_id: projectId,
    ...(id ? { id, trace_id: id } : {}),
    op_name: `weave:///${projectId}/op/predict:Hx8cR2kqYw3mZt`,
    started_at: new Date().toISOString(),
    attributes: { weave: { client_version: '0.11.1', source: 'js-sdk' } },
    inputs: { prompt: 'What is the capital of France?', temperature: 0.7, max_tokens: 256 },
  };
}

const INSERT_ONE = `insert into tracing.calls (project_id, id, trace_id, op_name, started_at, attributes, inputs, wb_user_id)
  values ($1, $2, $3, $4, $5, $6, $7, $8)`;

function insertMany(rows: ReturnType<typeof callStart>[]) {
  const values: unknown[] = [];
  const tuples = rows.map((row, i) => {
    const id = uuidv7();
    values.push(row.project_id, id, id, row.op_name, row.started_at, JSON.stringify(row.attributes), JSON.stringify(row.inputs), 'bench');
    const o = i * 8;
    return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7}, $${o + 8})`;
  });
  return { text: `insert into tracing.calls (project_id, id, trace_id, op_name, started_at, attributes, inputs, wb_user_id) values ${tuples.join(', ')}`, values };
}

let platformPid: number | undefined;

/**
 * The platform's processes so far (the process started and its node descendants: with TRELLIS_PROCESSES a
 * cluster's primary and its workers), or undefined where /proc is not there.
 */
function readPlatform(): TreeReading | undefined {
  if (platformPid === undefined || !existsSync(`/proc/${platformPid}/stat`)) return undefined;
  return readProcessTree(platformPid);
}

type RestResult = LoadResult & { cpuMsPerTask?: number; processes?: number };

/** `runLoad` of a REST path, with the platform's CPU time per task (ms, all its processes) when it can be read. */
async function runRestLoad(label: string, options: Parameters<typeof runLoad>[1], task: () => Promise<void>): Promise<RestResult> {
  const before = readPlatform();
  const result = await runLoad(label, options, task);
  const after = readPlatform();
  const tasks = result.operations / (options.unitsPerTask ?? 1);
  if (!before || !after || tasks === 0) return result;
  return { ...result, cpuMsPerTask: (usedBetween(before.node, after.node).cpuSeconds * 1000) / tasks, processes: servingProcesses(before) };
}

function printPair(title: string, rest: RestResult, baseline: LoadResult, unit: string) {
  console.log(`\n${title}`);
  console.log(`  ${'path'.padEnd(34)} ${unit.padStart(10)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} errors`);
  for (const result of [rest, baseline]) {
    console.log(`  ${result.label.padEnd(34)} ${fmt(result.perSecond, 0).padStart(10)} ${fmt(result.p50, 2).padStart(9)} ${fmt(result.p99, 2).padStart(9)} ${result.errors}`);
  }
  console.log(`  REST / baseline throughput: ${fmt(rest.perSecond / baseline.perSecond, 2)}`);
  if (rest.cpuMsPerTask !== undefined) console.log(`  platform CPU per REST request: ${fmt(rest.cpuMsPerTask, 2)} ms (${rest.processes} serving process(es))`);
}

async function ingestion(post: (route: string, body: unknown) => Promise<string>, db: pg.Pool, fetchHealth: () => Promise<number>) {
  // Warm up both paths (JIT, pools, the project cache).
  await runLoad('warmup', { concurrency: 64, seconds: 2 }, async () => void (await post('/call/start', { start: callStart('trellis/bench') })));
  await runLoad('warmup', { concurrency: 64, seconds: 1 }, async () => {
    const id = uuidv7();
    const row = callStart('trellis/bench-pg');
    await db.query(INSERT_ONE, [row.project_id, id, id, row.op_name, row.started_at, row.attributes, row.inputs, 'bench']);
  });

  const rest = await runRestLoad('REST POST /traces/call/start', { concurrency: 64, seconds: SECONDS }, async () => {
    await post('/call/start', { start: callStart('trellis/bench') });
  });
  const baseline = await runLoad('pg single-row INSERT', { concurrency: 64, seconds: SECONDS }, async () => {
    const id = uuidv7();
    const row = callStart('trellis/bench-pg');
    await db.query(INSERT_ONE, [row.project_id, id, id, row.op_name, row.started_at, row.attributes, row.inputs, 'bench']);
  });
  printPair('Ingestion: one call per request, 64 concurrent keep-alive connections', rest, baseline, 'calls/s');
  // What one REST request costs with no database work at all: Fastify + auth + the gateway running `{ __typename }`.
  const floor = await runLoad('REST GET /traces/health (no DB)', { concurrency: 64, seconds: Math.max(3, SECONDS / 2) }, async () => {
    const response = await fetchHealth();
    if (response !== 200) throw new Error(`health ${response}`);
  });
  console.log(`  ${floor.label.padEnd(34)} ${fmt(floor.perSecond, 0).padStart(10)} ${fmt(floor.p50, 2).padStart(9)} ${fmt(floor.p99, 2).padStart(9)} ${floor.errors}   (floor of the REST path)`);

  const BATCH = 1000;
  const batchRest = await runRestLoad('REST POST /traces/call/upsert_batch', { concurrency: 4, seconds: SECONDS, unitsPerTask: BATCH }, async () => {
    await post('/call/upsert_batch', {
      batch: Array.from({ length: BATCH }, () => ({ mode: 'start', req: { start: callStart('trellis/bench-batch', uuidv7()) } })),
    });
  });
  const batchBaseline = await runLoad('pg 1,000-row INSERT', { concurrency: 4, seconds: SECONDS, unitsPerTask: BATCH }, async () => {
    await db.query(insertMany(Array.from({ length: BATCH }, () => callStart('trellis/bench-batch-pg'))));
  });
  printPair('Ingestion: 1,000 calls per batch, 4 concurrent batches', batchRest, batchBaseline, 'calls/s');

  // Scored feedback, as evaluations write it: each row goes through the three rollup triggers on either path (the
  // prefix sums of its hour and group are rebuilt), so this prices the rollups' write cost, not only the REST path.
  let n = 0;
  const feedbackRest = await runRestLoad('REST POST /traces/feedback/create', { concurrency: 16, seconds: SECONDS }, async () => {
    await post('/feedback/create', scoredFeedback('trellis/bench-fb', n++));
  });
  const feedbackBaseline = await runLoad('pg single-row INSERT (triggers)', { concurrency: 16, seconds: SECONDS }, async () => {
    const index = n++;
    const row = scoredFeedback('trellis/bench-fb-pg', index);
    await db.query(INSERT_FEEDBACK, [row.project_id, row.weave_ref, row.feedback_type, row.runnable_ref, `Scorer${index % 5}`, row.scorer_tags,
      Object.keys(row.scorer_ratings), Object.values(row.scorer_ratings), row.scorer_ratings._rating_, row.span_agent_name]);
  });
  printPair('Feedback writes: one scored feedback row per request, 16 concurrent', feedbackRest, feedbackBaseline, 'rows/s');
}

/** A scorer's feedback on a call: 5 scorers, 3 agents, a tag on half, a `_rating_` of 100 distinct values. */
function scoredFeedback(projectId: string, n: number) {
  return {
    project_id: projectId,
    weave_ref: `weave:///${projectId}/call/c${n}`,
    feedback_type: `wandb.runnable.Scorer${n % 5}`,
    payload: { output: { score: (n % 100) / 100 } },
    runnable_ref: `weave:///${projectId}/object/Scorer${n % 5}:abc`,
    scorer_tags: n % 2 ? ['toxic'] : [],
    scorer_ratings: { _rating_: (n % 100) / 100, relevance: (n % 7) / 7 },
    span_agent_name: `agent${n % 3}`,
  };
}

const INSERT_FEEDBACK = `insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, runnable_ref, created_at, created_ms,
    scorer_id, scorer_tags, scorer_rating_names, scorer_rating_values, rating, span_agent_name, span_status_code)
  values ($1, gen_random_uuid(), $2, $3, '{}', $4, now(), (extract(epoch from now()) * 1000)::bigint, $5, $6, $7, $8, $9, $10, 'UNSET')`;

const DAY = 86_400_000;
const ROWS = 1_000_000;

async function aggregation(post: (route: string, body: unknown) => Promise<string>, db: pg.Pool) {
  const seeded = REUSE_DB
    ? ((await db.query(`select max(created_ms)::float8 as last from tracing.feedback where project_id = 'trellis/agg' and feedback_type <> 'seed'`)).rows[0]
        .last as number | null)
    : null;
  if (REUSE_DB && seeded === null) throw new Error(`database ${REUSE_DB} holds no seeded feedback`);
  const end = seeded !== null ? Math.ceil(seeded / 3_600_000) * 3_600_000 : Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const start = end - 30 * DAY;
  const t0 = Date.now();
  if (seeded === null) await seed(post, db, start);
  const rollupRows = (await db.query(`select by_rating, count(*)::int as n from tracing.feedback_hourly group by by_rating order by by_rating`)).rows;
  const groupsRows = (await db.query(`select count(*)::int as n from tracing.feedback_hourly_groups`)).rows[0].n as number;
  const cdfRows = (await db.query(`select count(*) filter (where not by_dims)::int as groups, count(*) filter (where by_dims)::int as dims from tracing.feedback_rating_cdf`)).rows[0];
  if (seeded === null) console.log(`\nAggregation: seeded ${ROWS.toLocaleString('en')} feedback rows over 30 days in ${((Date.now() - t0) / 1000).toFixed(1)} s (one INSERT, rollup triggers included)`);
  else console.log(`\nAggregation: the ${ROWS.toLocaleString('en')} feedback rows seeded earlier, ending ${new Date(end).toISOString()}`);
  console.log(`  hourly rollup rows: ${rollupRows.map((row) => `${row.n.toLocaleString('en')} ${row.by_rating ? 'by rating' : 'all ratings'}`).join(', ')}, ${groupsRows.toLocaleString('en')} per group columns; rating prefix sums ${cdfRows.groups.toLocaleString('en')} per group columns, ${cdfRows.dims.toLocaleString('en')} per dimensions`);
  console.log('  SQL = the same aggregation hand-written over the raw rows; rollup SQL = hand-written over the rollup the request reads');
  console.log(`  ${'window / filters'.padEnd(44)} ${'REST med'.padStart(9)} ${'REST p99'.padStart(9)} ${'SQL med'.padStart(8)} ${'SQL p99'.padStart(8)} ${'ratio'.padStart(6)} ${'rollupSQL'.padStart(9)} buckets`);

  const cases = [
    { label: '30 days, hourly, group_by scorer_id', days: 30, filters: {} },
    { label: '30 days, + tags and rating filters', days: 30, filters: { tags: ['toxic'], rating_min: 0.2, rating_max: 0.8 } },
    { label: '30 days, + tags [toxic]', days: 30, filters: { tags: ['toxic'] } },
    { label: '30 days, + rating 0.2..0.8', days: 30, filters: { rating_min: 0.2, rating_max: 0.8 } },
    { label: '30 days, window edges mid-hour (2 raw edges)', days: 30, filters: {}, edgeMs: 1_800_000 },
    { label: '7 days, hourly, group_by scorer_id', days: 7, filters: {} },
    { label: '1 day, hourly, group_by scorer_id', days: 1, filters: {} },
    { label: '1 day, + tags [toxic]', days: 1, filters: { tags: ['toxic'] } },
    { label: '1 day, + rating 0.2..0.8', days: 1, filters: { rating_min: 0.2, rating_max: 0.8 } },
    { label: '1 day, + tags and rating filters', days: 1, filters: { tags: ['toxic'], rating_min: 0.2, rating_max: 0.8 } },
  ];
  if (args.includes('--explain')) {
    const plan = await handWrittenAggregate(db, { after_ms: end - 30 * DAY, before_ms: end }, 'explain (analyze, buffers) ');
    console.log(plan.rows.map((row) => Object.values(row)[0]).join('\n'));
  }
  const bodyOf = ({ days, filters, edgeMs = 0 }: { days: number; filters: object; edgeMs?: number }) =>
    ({ project_id: 'trellis/agg', after_ms: end - days * DAY - edgeMs, before_ms: end - edgeMs, time_bucket_seconds: 3600, group_by: ['scorer_id'], ...filters });
  // The first requests of a fresh process run unoptimized code: timed once as "cold", then every case is run a few
  // times before any is measured, so that the table shows a warm server.
  const coldStart = performance.now();
  await post('/feedback/aggregate', bodyOf(cases[0]!));
  const cold = performance.now() - coldStart;
  const warmStart = performance.now();
  for (let round = 0; round < 3; round++) for (const c of cases) await post('/feedback/aggregate', bodyOf(c));
  console.log(`  first request of the process (30 days, unfiltered): ${fmt(cold)} ms; warm-up (3 rounds of every case): ${fmt((performance.now() - warmStart) / 1000)} s`);
  for (const c of cases) {
    const { label, days, edgeMs = 0 } = c;
    const body = bodyOf(c);
    let answer = '';
    // REST runs are cheap; the raw-row SQL of 30-day windows takes seconds per run, so it gets at most 5.
    const runs = days === 30 ? 25 : days === 7 ? 25 : 50;
    const rest = await timeRuns(runs, 1, async () => {
      answer = await post('/feedback/aggregate', body);
    });
    // Read after the clock stops: parsing a megabyte of JSON in this process is the client's time, not the request's.
    const buckets = (JSON.parse(answer) as { buckets: unknown[] }).buckets.length;
    const sqlRuns = await timeRuns(days === 30 ? 5 : 15, 1, async () => {
      await handWrittenAggregate(db, body);
    });
    const rollupRuns = edgeMs ? undefined : await timeRuns(runs, 1, async () => {
      await handWrittenRollupAggregate(db, body);
    });
    console.log(
      `  ${label.padEnd(44)} ${fmt(rest.median).padStart(9)} ${fmt(rest.p99).padStart(9)} ${fmt(sqlRuns.median).padStart(8)} ${fmt(sqlRuns.p99).padStart(8)} ${fmt(rest.median / sqlRuns.median, 2).padStart(6)} ${(rollupRuns ? fmt(rollupRuns.median) : '-').padStart(9)} ${buckets}`,
    );
  }
}

/** The project must exist for reads (created on first write), then 1,000,000 rows are generated in SQL. */
async function seed(post: (route: string, body: unknown) => Promise<string>, db: pg.Pool, start: number) {
  await post('/feedback/create', { project_id: 'trellis/agg', weave_ref: 'weave:///trellis/agg/call/x', feedback_type: 'seed', payload: {} });
  await db.query(
    `insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, runnable_ref, created_at, created_ms, scorer_id,
       span_type, scorer_tags, scorer_rating_names, scorer_rating_values, rating, span_agent_name, span_status_code)
     select 'trellis/agg', gen_random_uuid(), 'weave:///trellis/agg/call/c' || i, 'wandb.runnable.Scorer' || (i % 5), '{}'::jsonb,
       'weave:///trellis/agg/object/Scorer' || (i % 5) || ':abc', to_timestamp(ms / 1000.0), ms, 'Scorer' || (i % 5),
       case when i % 2 = 0 then 'agent_turn' else 'agent_conversation' end,
       case i % 4 when 0 then '{}'::text[] when 1 then array['toxic'] when 2 then array['helpful', 'short'] else array['helpful'] end,
       array['_rating_', 'relevance'], array[(i % 100) / 100.0, (i % 7) / 7.0]::float8[], (i % 100) / 100.0, 'agent' || (i % 3), 'UNSET'
     from (select i, $1::bigint + (i::bigint * $2::bigint / $3::bigint) as ms from generate_series(0, $3 - 1) as i) s`,
    [start, 30 * DAY, ROWS],
  );
  // Measured in the steady state autovacuum brings (hint bits and visibility maps set, statistics current), not
  // while it is still catching up with the million-row insert.
  for (const table of ['feedback', 'feedback_hourly', 'feedback_hourly_groups', 'feedback_rating_cdf']) await db.query(`vacuum analyze tracing.${table}`);
  // …and with the seeding's dirty pages written out, so that the checkpointer's writes do not land in the first cases.
  await db.query('checkpoint');
}

/** The same aggregation written by hand: counts per (hour, scorer), tag counts and rating sums, no GraphQL, no HTTP. */
async function handWrittenAggregate(
  db: pg.Pool,
  body: { after_ms: number; before_ms: number; tags?: string[]; rating_min?: number; rating_max?: number },
  prefix = '',
) {
  const where = [`project_id = 'trellis/agg'`, 'created_ms >= $1', 'created_ms < $2'];
  const params: unknown[] = [body.after_ms, body.before_ms];
  if (body.tags) where.push(`scorer_tags && $${params.push(body.tags)}::text[]`);
  if (body.rating_min !== undefined) where.push(`rating >= $${params.push(body.rating_min)}`);
  if (body.rating_max !== undefined) where.push(`rating <= $${params.push(body.rating_max)}`);
  const filtered = `select created_ms / 3600000 * 3600000 as b, coalesce(scorer_id, '') as s, scorer_tags, scorer_rating_names, scorer_rating_values
                    from tracing.feedback where ${where.join(' and ')}`;
  return db.query(
    `${prefix}with f as materialized (${filtered})
     select b, s, null as k, count(*) as n, count(*) filter (where cardinality(scorer_tags) > 0 or cardinality(scorer_rating_names) > 0) as v from f group by b, s
     union all select b, s, t, count(*), null from f, unnest(scorer_tags) t group by b, s, t
     union all select b, s, r.k, count(*), sum(r.v) from f, unnest(scorer_rating_names, scorer_rating_values) r(k, v) group by b, s, r.k`,
    params,
  );
}

/**
 * The same aggregation hand-written over the hourly rollup (whole-hour windows only): what the rollup costs
 * without HTTP, GraphQL and the platform's query builder.
 */
async function handWrittenRollupAggregate(db: pg.Pool, body: { after_ms: number; before_ms: number; tags?: string[]; rating_min?: number; rating_max?: number }) {
  if (!body.tags && body.rating_min === undefined && body.rating_max === undefined) {
    // Unfiltered: the rollup per hour and group columns, its maps as aligned arrays.
    return db.query(
      `with f as materialized (select hour_ms as b, coalesce(scorer_id, '') as s, n, scored, tag_names, tag_counts, rating_names, rating_counts, rating_sums
                               from tracing.feedback_hourly_groups where project_id = 'trellis/agg' and hour_ms >= $1 and hour_ms < $2)
       select b, s, null as k, sum(n) as n, sum(scored) as v from f group by b, s
       union all select b, s, t.k, sum(t.c), null from f, unnest(tag_names, tag_counts) t(k, c) group by b, s, t.k
       union all select b, s, r.k, sum(r.c), sum(r.v) from f, unnest(rating_names, rating_counts, rating_sums) r(k, c, v) group by b, s, r.k`,
      [body.after_ms, body.before_ms],
    );
  }
  if (body.rating_min !== undefined || body.rating_max !== undefined) {
    // Rating bounds: the prefix sums (feedback_rating_cdf), per group columns or, with tags, per dimensions; each
    // row's range is hi - lo (binary searches), its tag and rating maps unnested from the two rendered prefix sums.
    const params: unknown[] = [body.after_ms, body.before_ms, body.rating_min ?? 0, body.rating_max ?? 1];
    const tags = body.tags ? `and scorer_tags && $${params.push(body.tags)}::text[]` : '';
    const section = (prefix: string, index: number, type: string) => `string_to_array(split_part(${prefix}, ';', ${index}), ',')::${type}[]`;
    return db.query(
      `with f as materialized (
         select hour_ms as b, coalesce(scorer_id, '') as s, cum_n[hi + 1] - cum_n[lo + 1] as n, cum_scored[hi + 1] - cum_scored[lo + 1] as v,
                array(select json_array_elements_text(names::json -> 0)) as tag_names, ${section('cum_maps[hi + 1]', 1, 'bigint')} as tags_hi,
                ${section('cum_maps[lo + 1]', 1, 'bigint')} as tags_lo,
                array(select json_array_elements_text(names::json -> 1)) as rating_names, ${section('cum_maps[hi + 1]', 2, 'bigint')} as counts_hi,
                ${section('cum_maps[lo + 1]', 2, 'bigint')} as counts_lo,
                ${section('cum_maps[hi + 1]', 3, 'numeric')} as sums_hi, ${section('cum_maps[lo + 1]', 3, 'numeric')} as sums_lo
         from (select c.*, width_bucket($4::float8, ratings) as hi,
                      width_bucket($3::float8, ratings) - coalesce((ratings[width_bucket($3::float8, ratings)] = $3::float8)::int, 0) as lo
               from tracing.feedback_rating_cdf c
               where project_id = 'trellis/agg' and by_dims = ${Boolean(body.tags)} and hour_ms >= $1 and hour_ms < $2 ${tags}) x)
       select b, s, null as k, sum(n) as n, sum(v) as v from f where n > 0 group by b, s
       union all select b, s, t.k, sum(t.hi - t.lo), null from f, unnest(tag_names, tags_hi, tags_lo) t(k, hi, lo) where t.hi > t.lo group by b, s, t.k
       union all select b, s, r.k, sum(r.hi - r.lo), sum(r.shi - r.slo) from f, unnest(rating_names, counts_hi, counts_lo, sums_hi, sums_lo) r(k, hi, lo, shi, slo)
                 where r.hi > r.lo group by b, s, r.k`,
      params,
    );
  }
  const where = [`project_id = 'trellis/agg'`, 'not by_rating', 'hour_ms >= $1', 'hour_ms < $2'];
  const params: unknown[] = [body.after_ms, body.before_ms];
  if (body.tags) where.push(`scorer_tags && $${params.push(body.tags)}::text[]`);
  return db.query(
    `with f as materialized (select hour_ms as b, coalesce(scorer_id, '') as s, scorer_tags, scorer_rating_names, rating_sums, n, scored
                             from tracing.feedback_hourly where ${where.join(' and ')})
     select b, s, null as k, sum(n) as n, sum(scored) as v from f group by b, s
     union all select b, s, t, sum(n), null from f, unnest(scorer_tags) t group by b, s, t
     union all select b, s, r.k, sum(n), sum(r.v) from f, unnest(scorer_rating_names, rating_sums) r(k, v) group by b, s, r.k`,
    params,
  );
}

await main();
