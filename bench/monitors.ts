/**
 * What monitors add to call ingestion (issue #31: at most 10%), side by side in one run against one platform and one
 * PostgreSQL: the same loads on a project without monitors and on a project with one active built-in monitor (a
 * regex over the output, every call sampled), interleaved round by round so that drift on a shared machine hits both.
 *
 *   npm run build && LOG_LEVEL=warn node dist/bench/monitors.js [--seconds 8] [--rounds 3] [--batch 500]
 *     [--only start|start-end|batch] [--drain-seconds 600] [--postgres-statements]
 *
 * Loads (each call ends, so a monitored project's writes publish the monitors' event):
 * - `/call/start` alone, 64 concurrent connections (a start ends nothing: monitors cost only the in-memory check);
 * - `/call/start` then `/call/end` per call, 64 concurrent (concurrent ends are written a flush at a time; a monitored
 *   project's flush is a transaction with one event);
 * - `/call/upsert_batch` of `--batch` calls (a start and an end each), 4 concurrent (one event per batch).
 * Each monitored round then waits until the monitor has looked at every call it ended (the consumer's work is part
 * of the cost; `--drain-seconds` bounds the wait, and a monitor that did not catch up is reported as such, with what
 * it had scored, rather than ending the run), and CPU time (Linux /proc) is read over the load and that drain: the
 * platform's node processes, and — when the bench started PostgreSQL itself (no DATABASE_URL) — PostgreSQL's, where
 * most of the monitor's recording happens. The ratios printed are monitored / unmonitored: throughput (calls/s,
 * over the load alone), platform CPU per call, and platform + PostgreSQL CPU per call.
 *
 * The floor: after the `upsert_batch` load, PostgreSQL's CPU for writing `--batch`×40 score feedback rows made inside
 * the server (one INSERT, the rollup triggers included, rolled back) is printed per row beside the plain project's
 * platform + PostgreSQL CPU per call: what recording a score as feedback costs before anything else a monitor does
 * (reading the call, the once-only result row, the process's part). Embedded PostgreSQL only.
 *
 * `--postgres-statements` (embedded PostgreSQL only): the server keeps statement statistics, and each project's
 * statements of the last round (load and drain) are printed per call, so the recording of the monitor's results can
 * be read beside the ingestion's own writes.
 */
import os from 'node:os';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { uuidv7 } from 'uuidv7';
import { fmt, runLoad, type LoadResult } from './load.js';
import { POSTGRES_STATEMENT_SETTINGS, PostgresStatements, printStatements, type StatementFigures } from './postgres-statements.js';
import { readProcessTree, usedBetween, type ProcessUsage } from './process-cpu.js';
import { startBenchPlatform, type BenchPlatform } from './support.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1]! : fallback;
};
const SECONDS = Number(option('seconds', '8'));
const ROUNDS = Number(option('rounds', '3'));
const BATCH = Number(option('batch', '500'));
const ONLY = option('only', '');
const DRAIN_SECONDS = Number(option('drain-seconds', '600'));
const POSTGRES_STATEMENTS = args.includes('--postgres-statements');
/** How often the drain asks the monitor's stats (the drain times printed are this coarse). */
const DRAIN_POLL_MS = 500;
const KEY = 'bench-admin-key-0123456789abcdefghijkl';
const AUTH = `Basic ${Buffer.from(`api:${KEY}`).toString('base64')}`;
const PLAIN = 'bench-plain';
const MONITORED = 'bench-monitored';

interface Measured {
  calls: number;
  seconds: number;
  cpuMs: number;
  /** PostgreSQL's CPU over the same window (NaN when the bench did not start PostgreSQL). */
  pgCpuMs: number;
  /** How long the monitor took to look at every call after the load ended (0 without a monitor). */
  drainSeconds: number;
  /** Calls the monitor had not looked at when the drain's bound ran out (0: it caught up). */
  behind: number;
  p50: number;
  p99: number;
}

async function main() {
  let bench: BenchPlatform | undefined;
  try {
    // The embedded model is not needed: a built-in check asks no model.
    bench = await startBenchPlatform('monitors', KEY, { TRELLIS_EMBEDDED_MODEL: 'off' }, POSTGRES_STATEMENTS ? { postgresSettings: POSTGRES_STATEMENT_SETTINGS.split(' ') } : {});
    if (POSTGRES_STATEMENTS && !bench.postgresDir) throw new Error('--postgres-statements needs the embedded PostgreSQL (no DATABASE_URL)');
    const statements = POSTGRES_STATEMENTS ? await PostgresStatements.connectCluster(bench.postgresDir!) : undefined;
    const statementCells: { cell: string; figures: { top: StatementFigures[]; total: StatementFigures } }[] = [];
    /** The plain project's platform + PostgreSQL CPU per call under upsert_batch (the floor is compared with it). */
    let plainBatchTotalMsPerCall: number | undefined;
    const platform = bench.service;
    const embedded = bench.postgres;
    const baseUrl = bench.url;
    const http = new HttpPool(baseUrl, { connections: 64, pipelining: 1 });
    const request = async (method: string, route: string, body: unknown, authorization = AUTH) => {
      const response = await http.request({ method, path: route, headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify(body) });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${route}: ${response.statusCode} ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };
    const post = (route: string, body: unknown) => request('POST', `/traces${route}`, body);
    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const body = await request('POST', '/graphql', { query, variables }, `Bearer ${KEY}`);
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    };
    for (const name of [PLAIN, MONITORED]) await graphql(`mutation($name: String!) { createProject(entity: "trellis", name: $name) { fullName } }`, { name });
    const { createMonitor } = await graphql(
      `mutation($input: MonitorInput!) { createMonitor(entity: "trellis", project: "${MONITORED}", input: $input) { id } }`,
      { input: { name: 'has-answer', samplingRate: 1, scorer: { kind: 'REGEX', pattern: 'Paris' } } },
    );
    const monitorId: string = createMonitor.id;
    const looked = async () => {
      const data = await graphql(`query { project(entity: "trellis", name: "${MONITORED}") { monitors { id stats { scored skippedBySampling failed } } } }`);
      const stats = data.project.monitors.find((monitor: { id: string }) => monitor.id === monitorId).stats;
      return stats.scored + stats.skippedBySampling + stats.failed;
    };
    let endedMonitored = 0;
    /** Waits until the monitor looked at every monitored call ended so far; resolves with how many it had not. */
    const drained = async (): Promise<number> => {
      const deadline = Date.now() + DRAIN_SECONDS * 1000;
      for (;;) {
        const behind = endedMonitored - (await looked());
        if (behind <= 0) return 0;
        if (Date.now() > deadline) {
          console.log(`  the monitor did not catch up within ${DRAIN_SECONDS}s: ${endedMonitored - behind} of ${endedMonitored} ended calls looked at`);
          return behind;
        }
        // Each look is a GraphQL query the platform and PostgreSQL answer inside the measured window: polled every
        // 50 ms, a drain of a few seconds added tens of microseconds of CPU per call to the monitored side.
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
    };
    /** PostgreSQL's processes, when this bench started it (its children that are not node). */
    const postgresCpu = () => (embedded ? readProcessTree(process.pid).others : undefined);

    const start = (project: string, id: string) => ({
      project_id: `trellis/${project}`,
      id,
      trace_id: id,
      op_name: `weave:///trellis/${project}/op/predict:Hx8cR2kqYw3mZt`,
      started_at: new Date().toISOString(),
      attributes: { weave: { client_version: '0.11.1', source: 'js-sdk' } },
      inputs: { prompt: 'What is the capital of France?', temperature: 0.7, max_tokens: 256 },
    });
    const end = (project: string, id: string) => ({
      project_id: `trellis/${project}`,
      id,
      ended_at: new Date().toISOString(),
      output: { answer: 'Paris' },
      summary: { usage: { 'gpt-4o-mini': { requests: 1, prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } } },
    });

    const loads: { key: string; title: string; concurrency: number; unitsPerTask: number; ends: boolean; task: (project: string) => Promise<void> }[] = [
      { key: 'start', title: '/call/start (one call per request)', concurrency: 64, unitsPerTask: 1, ends: false, task: async (project) => void (await post('/call/start', { start: start(project, uuidv7()) })) },
      {
        key: 'start-end',
        title: '/call/start + /call/end (two requests per call)',
        concurrency: 64,
        unitsPerTask: 1,
        ends: true,
        task: async (project) => {
          const id = uuidv7();
          await post('/call/start', { start: start(project, id) });
          await post('/call/end', { end: end(project, id) });
        },
      },
      {
        key: 'batch',
        title: `/call/upsert_batch (${BATCH} calls, a start and an end each, per request)`,
        concurrency: 4,
        unitsPerTask: BATCH,
        ends: true,
        task: async (project) => {
          const ids = Array.from({ length: BATCH }, () => uuidv7());
          await post('/call/upsert_batch', {
            batch: [...ids.map((id) => ({ mode: 'start', req: { start: start(project, id) } })), ...ids.map((id) => ({ mode: 'end', req: { end: end(project, id) } }))],
          });
        },
      },
    ];

    const measure = async (project: string, load: (typeof loads)[number], lastRound: boolean): Promise<Measured> => {
      if (lastRound) await statements?.reset();
      const before = readProcessTree(platform.child.pid!);
      const pgBefore = postgresCpu();
      const result: LoadResult = await runLoad(`${load.title} ${project}`, { concurrency: load.concurrency, seconds: SECONDS, unitsPerTask: load.unitsPerTask }, () => load.task(project));
      const drainStarted = Date.now();
      let behind = 0;
      if (project === MONITORED && load.ends) {
        endedMonitored += result.operations;
        behind = await drained();
      }
      const drainSeconds = (Date.now() - drainStarted) / 1000;
      const after = readProcessTree(platform.child.pid!);
      const pgAfter = postgresCpu();
      if (lastRound && statements) statementCells.push({ cell: `${load.key}, ${project}`, figures: await statements.read(result.operations, 8) });
      return {
        calls: result.operations,
        seconds: result.seconds,
        cpuMs: usedBetween(before.node, after.node).cpuSeconds * 1000,
        pgCpuMs: pgBefore && pgAfter ? usedBetween(pgBefore, pgAfter).cpuSeconds * 1000 : Number.NaN,
        drainSeconds,
        behind,
        p50: result.p50,
        p99: result.p99,
      };
    };

    console.log(`Monitors' ingestion cost — Node ${process.version}, ${os.cpus().length} CPUs, ${ROUNDS} rounds of ${SECONDS}s per load and project, load ${os.loadavg()[0]!.toFixed(1)}`);
    for (const load of loads.filter((load) => !ONLY || load.key === ONLY)) {
      // Warm-up of both projects (JIT, pools, caches).
      for (const project of [PLAIN, MONITORED]) {
        const warmup = await runLoad('warmup', { concurrency: load.concurrency, seconds: 1, unitsPerTask: load.unitsPerTask }, () => load.task(project));
        if (project === MONITORED && load.ends) endedMonitored += warmup.operations;
      }
      // The warm-up's calls are looked at before the measured rounds begin.
      if (load.ends) await drained();
      const totals: Record<string, Measured[]> = { [PLAIN]: [], [MONITORED]: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so neither always follows the other's leftovers.
        const order = round % 2 === 0 ? [PLAIN, MONITORED] : [MONITORED, PLAIN];
        for (const project of order) totals[project]!.push(await measure(project, load, round === ROUNDS - 1));
      }
      const sum = (runs: Measured[]) => {
        const total = (field: 'calls' | 'seconds' | 'cpuMs' | 'pgCpuMs' | 'drainSeconds' | 'behind') => runs.reduce((sum, run) => sum + run[field], 0);
        const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
        const calls = total('calls');
        return {
          perSecond: calls / total('seconds'),
          cpuMsPerCall: total('cpuMs') / calls,
          totalCpuMsPerCall: (total('cpuMs') + total('pgCpuMs')) / calls,
          drainSeconds: total('drainSeconds'),
          behind: total('behind'),
          p50: median(runs.map((run) => run.p50)),
          p99: median(runs.map((run) => run.p99)),
        };
      };
      const plain = sum(totals[PLAIN]!);
      const monitored = sum(totals[MONITORED]!);
      if (load.key === 'batch') plainBatchTotalMsPerCall = plain.totalCpuMsPerCall;
      console.log(`\n${load.title}, ${load.concurrency} concurrent`);
      console.log(
        `  ${'project'.padEnd(24)} ${'calls/s'.padStart(9)} ${'CPU ms/call'.padStart(12)} ${'+PG ms/call'.padStart(12)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'drain s'.padStart(8)}`,
      );
      for (const [label, row] of [['no monitor', plain], ['one built-in monitor', monitored]] as const) {
        console.log(
          `  ${label.padEnd(24)} ${fmt(row.perSecond, 0).padStart(9)} ${fmt(row.cpuMsPerCall, 3).padStart(12)} ${fmt(row.totalCpuMsPerCall, 3).padStart(12)} ${fmt(row.p50, 2).padStart(8)} ${fmt(row.p99, 2).padStart(8)} ${fmt(row.drainSeconds, 1).padStart(8)}`,
        );
      }
      console.log(
        `  monitored / plain: throughput ${fmt(monitored.perSecond / plain.perSecond, 3)}, platform CPU per call ${fmt(monitored.cpuMsPerCall / plain.cpuMsPerCall, 3)}, platform + PostgreSQL CPU per call ${fmt(monitored.totalCpuMsPerCall / plain.totalCpuMsPerCall, 3)} (target: CPU ≤ 1.10)`,
      );
      if (monitored.behind > 0) console.log(`  MISSED: the monitor was ${monitored.behind} calls behind when the drain's bound ran out (its CPU above is a lower bound)`);
    }
    console.log(`\nmonitor looked at ${await looked()} calls (every monitored call that ended)`);
    if (embedded && plainBatchTotalMsPerCall !== undefined) await printFloor(bench.databaseUrl, postgresCpu, plainBatchTotalMsPerCall);
    printStatements(statementCells, { unit: 'ingested call', short: 'call', measured: "reset before each project's last round, read after its drain" });
    await statements?.close();
    await http.close();
  } finally {
    await bench?.close();
  }
}

/**
 * PostgreSQL's CPU per score feedback row, rows made inside the server (no client, no JSON) as a monitor's are: one
 * INSERT of `rows` rows through the rollup triggers, three times, each rolled back; the median is printed against the
 * plain ingestion's cost per call.
 */
async function printFloor(databaseUrl: string, postgresCpu: () => Map<string, ProcessUsage> | undefined, plainMsPerCall: number): Promise<void> {
  const rows = BATCH * 40;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const perRow: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await client.query('begin');
      const before = postgresCpu()!;
      await client.query(
        `insert into tracing.feedback (project_id, id, weave_ref, feedback_type, payload, runnable_ref, trigger_ref, wb_user_id, created_at, created_ms,
           scorer_id, monitor_id, span_type, scorer_rating_names, scorer_rating_values, rating)
         select 'trellis/bench-floor', gen_random_uuid(), 'weave:///trellis/bench-floor/call/' || i, 'wandb.runnable.has-answer',
           jsonb_build_object('output', 1, 'reason', 'output matches /Paris/'), 'weave:///trellis/bench-floor/object/has-answer:m', 'weave:///trellis/bench-floor/object/has-answer:m',
           'u', now(), (extract(epoch from now()) * 1000)::bigint, 'has-answer', 'has-answer', 'call', array['_rating_'], array[1::float8], 1
         from generate_series(1, $1::int) as i`,
        [rows],
      );
      const after = postgresCpu()!;
      await client.query('rollback');
      perRow.push((usedBetween(before, after).cpuSeconds * 1000) / rows);
    }
    const median = [...perRow].sort((a, b) => a - b)[1]!;
    console.log(
      `\nfloor: ${rows} score feedback rows written inside PostgreSQL (rollup triggers included): ${perRow.map((ms) => fmt(ms * 1000, 1)).join(' · ')} µs of PostgreSQL CPU a row; ` +
        `median ${fmt(median / plainMsPerCall, 3)}× of the plain project's platform + PostgreSQL CPU per call under upsert_batch (${fmt(plainMsPerCall * 1000, 1)} µs)`,
    );
  } finally {
    await client.end();
  }
}

await main();
