import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { quantile, runClosedLoop, sleep, type LoadRequest } from './closed-loop-load.js';
import { checkHopTargets, throughputAgainstPortkey } from './hop-targets.js';
import { readProcessTree, servingProcesses, usedBetween } from './process-cpu.js';
import { PLATFORM_NODE_FLAGS } from '../server/node-flags.js';
import { embeddedSuperuserUrl, POSTGRES_STATEMENT_SETTINGS, PostgresStatements, printStatements } from './postgres-statements.js';

/**
 * Inference overhead benchmark: stand-in OpenAI-compatible upstreams (one process per upstream delay) called
 * directly, through a bare Node pass-through proxy (`floor`: what one extra Node hop costs on this machine, see
 * pass-through-proxy.ts), through a second bare proxy (`control`, judged against the floor as Trellis is: whether the
 * floor meets its own targets in this run), through the essential gateway (`essentials`: authentication, body checks
 * and a row per request in Trellis' PostgreSQL without Trellis' structure, see essential-gateway.ts), through Trellis (`npm start`: REST adapter → inference subgraph → upstream, in a
 * node:cluster primary's worker processes, see `--trellis-processes`) and through the Portkey AI gateway (own
 * process), side by side in one run, plain and streaming, at several concurrencies and upstream delays. Closed loop:
 * each client sends its next request when the previous one is done, so N clients offer at most N / delay requests
 * per second. Besides latency, each cell reports the CPU time the proxy spent per request (its process with its
 * node descendants: for Trellis the primary and its workers) and that of Trellis' PostgreSQL (its other
 * descendants), read from /proc: the figure that does not depend on how loaded the shared machine was.
 *
 *   npm run build && LOG_LEVEL=warn node dist/bench/inference.js [--delays 50,300] [--seconds 5] [--warmup-seconds 2]
 *     [--concurrency 1,50,200] [--targets direct,floor,control,essentials,trellis,portkey] [--modes plain,stream] [--arrivals staggered|lockstep] [--probes 10]
 *     [--trellis-processes N] [--rounds N] [--postgres-statements]
 *
 * Probes (`--probes 10`, default): during each proxy cell that many extra clients call the upstream directly. On
 * this machine the proxy, the upstream and the load generator share two cores, so a busy proxy also delays the
 * upstream's own answers; the probes see that delay too, and "added vs probes" is what the hop itself adds.
 *
 * Arrivals: `staggered` (default) starts the N clients evenly spread over one upstream delay, so requests arrive
 * uniformly as from independent users; `lockstep` starts them all at once, and with a fixed upstream delay they
 * stay in waves of N simultaneous requests (the worst case for any single-threaded proxy).
 *
 * BENCH_TRELLIS_NODE_ARGS adds node flags to the Trellis started (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`);
 * BENCH_TRELLIS_STDOUT=<file> appends every line the started Trellis prints to that file (e.g. with
 * `BENCH_TRELLIS_NODE_ARGS=--trace-gc-nvp`: one line per garbage collection, read as in docs/benchmarks-history.md,
 * inference, "2026-11-27: a process per core by default").
 * BENCH_TRELLIS_ENV adds to its environment (a JSON object of strings, e.g. `{"TRELLIS_PROCESSES":"1"}`; it wins over
 * `--trellis-processes` and this process's own environment).
 * `--cells-json FILE` also writes the measured cells as JSON. Two builds, two sets of flags or of environment,
 * alternating in pairs with medians: bench/inference-compare.ts.
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1]! : fallback;
};
const DELAYS = option('delays', option('delay-ms', '50,300')).split(',').map(Number);
const SECONDS = Number(option('seconds', '5'));
const WARMUP_SECONDS = Number(option('warmup-seconds', '2'));
const CONCURRENCIES = option('concurrency', '1,50,200').split(',').map(Number);
const TARGETS = option('targets', 'direct,floor,control,essentials,trellis,portkey').split(',');
if (TARGETS.includes('essentials') && !TARGETS.includes('trellis')) throw new Error('essentials writes into Trellis\' PostgreSQL: --targets must include trellis');
const MODES = option('modes', 'plain,stream').split(',') as Mode[];
const ARRIVALS = option('arrivals', 'staggered');
/**
 * `--trellis-processes N`: TRELLIS_PROCESSES for the Trellis started (N node:cluster workers serving one port; 1:
 * one process, no cluster). Without it TRELLIS_PROCESSES is left as this process's environment has it (unset: the
 * platform's default, a worker per core).
 */
const TRELLIS_PROCESSES = option('trellis-processes', '');
if (TRELLIS_PROCESSES && !/^([1-9]\d*|auto)$/.test(TRELLIS_PROCESSES)) throw new Error('--trellis-processes is a number or auto');
/**
 * `--postgres-statements`: Trellis' embedded PostgreSQL keeps statement statistics (pg_stat_statements), and the
 * statements of each Trellis cell at the highest concurrency are printed per request (bench/postgres-statements.ts).
 */
const POSTGRES_STATEMENTS = args.includes('--postgres-statements');
/** Environment of the Trellis started, besides this process's own and what the bench sets for its run. */
const TRELLIS_ENV: Record<string, string> = {
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  ...(TRELLIS_PROCESSES ? { TRELLIS_PROCESSES } : {}),
  ...(POSTGRES_STATEMENTS ? { TRELLIS_POSTGRES_SETTINGS: POSTGRES_STATEMENT_SETTINGS } : {}),
  ...envObject('BENCH_TRELLIS_ENV'),
};
/** TRELLIS_PROCESSES as the Trellis started gets it, for the report. */
const trellisProcessesSetting = () => {
  const value = TRELLIS_ENV.TRELLIS_PROCESSES ?? process.env.TRELLIS_PROCESSES;
  return value ? `TRELLIS_PROCESSES=${value}` : 'TRELLIS_PROCESSES unset: the platform default';
};

/** The JSON object of strings in environment variable `name` ({} when unset). */
function envObject(name: string): Record<string, string> {
  const text = process.env[name];
  if (!text) return {};
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((entry) => typeof entry !== 'string')) {
    throw new Error(`${name} is a JSON object of strings, not ${text}`);
  }
  return value as Record<string, string>;
}
/**
 * `--rounds N`: at the highest concurrency, every target but Portkey is measured N times, interleaved (each
 * round in a rotated order; Portkey once, in the first). Issue #15's verdict then takes, per figure, the median over
 * the rounds (bench/hop-targets.ts): on this shared machine one cell's p99 rests on a few disturbances.
 */
const ROUNDS = Number(option('rounds', '1'));
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds is a whole number ≥ 1');
/** Clients calling the upstream directly *during* each proxy cell (0: none). */
const PROBES = Number(option('probes', '10'));
/** Also write the measured cells as JSON to this file (bench/inference-compare.ts reads them). */
const CELLS_JSON = option('cells-json', '');
if (ARRIVALS !== 'staggered' && ARRIVALS !== 'lockstep') throw new Error('--arrivals is staggered or lockstep');
const API_KEY = 'bench-admin-key-0123456789abcdefghijkl';
/**
 * The team and project Trellis' requests name (the openai SDK's `OpenAI-Project` header): a request that names a
 * project is also traced there as a Family A call (issue #15 measures the hop with tracing on), and the run checks
 * that every successful response became one.
 */
const TRACED_TEAM = 'trellis';
const TRACED_PROJECT = 'inference-bench';

type Mode = 'plain' | 'stream';
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const children: ChildProcess[] = [];
/** Share of a core the Trellis processes (the primary and its workers together) use with no requests. */
let trellisIdleCoreShare = 0;

interface Target {
  name: 'direct' | 'floor' | 'control' | 'essentials' | 'trellis' | 'portkey';
  /**
   * The process serving the target's requests for an upstream delay (the upstream itself for `direct`); its node
   * descendants (a cluster's workers) are measured with it.
   */
  pid(delayMs: number): number;
  /** The process whose other descendants are the PostgreSQL the target writes to (Trellis' own, also for `essentials`). */
  postgresPid?: number;
  request(delayMs: number, mode: Mode, content: string): LoadRequest;
}

interface Cell {
  target: Target['name'];
  /** Which of the `--rounds` measured the cell (absent below the highest concurrency or with one round). */
  round?: number;
  mode: Mode;
  delayMs: number;
  concurrency: number;
  requests: number;
  errors: number;
  firstError?: string;
  throughput: number;
  p50: number;
  p99: number;
  /** Processes that served the requests: the node descendants found at the window's start, or 1 when none. */
  processes: number;
  /** CPU µs per request of the target's processes (for direct: the upstream's; for trellis: primary and workers). */
  cpuPerRequestUs: number;
  /** The kernel's share of cpuPerRequestUs. */
  systemShare: number;
  /** Share of one core the target's processes used during the window (all of them together). */
  cpuCoreShare: number;
  /** cpuPerRequestUs without what the processes burn when idle (trellis only). */
  netCpuPerRequestUs?: number;
  /** CPU µs per request of Trellis' PostgreSQL processes (trellis only). */
  postgresPerRequestUs?: number;
  /** Latency of the direct probe clients running during this cell (proxies only, with --probes). */
  probeP50?: number;
  probeP99?: number;
  /** CPU µs per request of this (load generator) process. */
  generatorPerRequestUs: number;
  /** Read and write system calls per request of the target's processes (for direct: the upstream's). */
  readsPerRequest: number;
  writesPerRequest: number;
}

/** Successful responses per target over the whole run (warm-up and smoke requests included). */
const succeeded = new Map<string, number>();
const countSuccess = (target: string, count = 1) => succeeded.set(target, (succeeded.get(target) ?? 0) + count);

/**
 * Starts a process and resolves with it once `match` accepts one of its stdout lines. `stderr`: inherited unless
 * 'ignore'; `copyStdoutTo`: a file every stdout line is also appended to.
 */
function startProcess(
  command: string,
  argv: string[],
  env: Record<string, string>,
  match: (line: string) => string | undefined,
  { stderr = 'inherit', copyStdoutTo }: { stderr?: 'inherit' | 'ignore'; copyStdoutTo?: string } = {},
): Promise<{ pid: number; found: string }> {
  const child = spawn(command, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', stderr] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    if (copyStdoutTo) lines.on('line', (line) => appendFileSync(copyStdoutTo, `${line}\n`));
    lines.on('line', (line) => {
      const found = match(line.replace(/\x1b\[[0-9;]*m/g, ''));
      if (found) resolve({ pid: child.pid!, found });
    });
    child.once('exit', (code) => reject(new Error(`${command} ${argv.join(' ')} exited with ${code} before it was ready`)));
  });
}

/**
 * Starts one of the bench's own servers (dist/bench/<script>), which prints `{"port":N}` once it listens: the stand-in
 * upstream, the bare pass-through proxy (the floor and the control) and the essential gateway.
 */
async function startBenchServer(script: string, argv: string[]): Promise<{ pid: number; url: string }> {
  const { pid, found } = await startProcess(process.execPath, [path.join(here, script), ...argv], {}, (line) =>
    line.startsWith('{"port"') ? line : undefined,
  );
  return { pid, url: `http://127.0.0.1:${(JSON.parse(found) as { port: number }).port}` };
}

const modelFor = (delayMs: number) => `bench-${delayMs}ms`;

async function startTrellis(upstreams: Map<number, string>, dataDir: string): Promise<{ pid: number; url: string }> {
  const modelsFile = path.join(dataDir, 'models.json');
  const models = [...upstreams].map(([delayMs, url]) => ({
    id: modelFor(delayMs),
    backend: 'openai-compatible',
    deployments: [{ base_url: `${url}/v1`, api_key: 'sk-bench' }],
  }));
  await writeFile(modelsFile, JSON.stringify({ models }));
  const { pid, found } = await startProcess(
    process.execPath,
    // With `npm start`'s Node flags; BENCH_TRELLIS_NODE_ARGS come after them and win (--max-semi-space-size=16: Node's
    // default). BENCH_TRELLIS_MAIN: another build's dist/server/main.js, to compare two versions with the same load.
    [...PLATFORM_NODE_FLAGS, ...(process.env.BENCH_TRELLIS_NODE_ARGS ?? '').split(' ').filter(Boolean), process.env.BENCH_TRELLIS_MAIN ?? path.join(root, 'dist', 'server', 'main.js')],
    {
      ...TRELLIS_ENV,
      PORT: '0',
      TRELLIS_DATA_DIR: dataDir,
      TRELLIS_BOOTSTRAP_API_KEY: API_KEY,
      TRELLIS_MODELS_FILE: modelsFile,
    },
    (line) => /Trellis is running at (http:\/\/\S+)/.exec(line)?.[1],
    { copyStdoutTo: process.env.BENCH_TRELLIS_STDOUT },
  );
  return { pid, url: found };
}

async function startPortkey(): Promise<{ pid: number; url: string }> {
  const port = 18_000 + Math.floor(Math.random() * 10_000);
  const entry = path.join(root, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  // Portkey logs a stack trace per failed request on stderr; failures are counted by the smoke checks instead.
  const { pid } = await startProcess(
    process.execPath,
    [entry, `--port=${port}`, '--headless'],
    { NODE_ENV: 'production' },
    (line) => (line.includes('Ready for connections') || line.includes(`:${port}`) ? 'ready' : undefined),
    { stderr: 'ignore' },
  );
  return { pid, url: `http://127.0.0.1:${port}` };
}

const bodyOf = (model: string, mode: Mode, content: string) =>
  JSON.stringify({ model, messages: [{ role: 'user', content }], ...(mode === 'stream' ? { stream: true } : {}) });

/**
 * The cells to measure at one concurrency: each target once, or in `rounds` interleaved rounds, each round's order
 * rotated by one so no target always follows the same one; Portkey (the slowest, judged only for throughput) once,
 * after the first round.
 */
function cellOrder(targets: Target[], rounds: number): { target: Target; round?: number }[] {
  if (rounds === 1) return targets.map((target) => ({ target }));
  const judged = targets.filter((target) => target.name !== 'portkey');
  const order: { target: Target; round?: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const shift = (round - 1) % judged.length;
    for (const target of [...judged.slice(shift), ...judged.slice(0, shift)]) order.push({ target, round });
    if (round === 1) for (const target of targets.filter((candidate) => candidate.name === 'portkey')) order.push({ target, round });
  }
  return order;
}

async function runCell(
  target: Target,
  mode: Mode,
  delayMs: number,
  concurrency: number,
  direct: Target | undefined,
): Promise<Cell> {
  const cpu = { target: 0, system: 0, postgres: 0, generator: 0, reads: 0, writes: 0 };
  const pid = target.pid(delayMs);
  // The target's process and its node descendants (workers found anew at each reading: they can be restarted); a
  // Trellis' other descendants are its embedded PostgreSQL.
  const postgresPid = target.postgresPid;
  const read = () => {
    const tree = readProcessTree(pid);
    return { tree, postgres: postgresPid === undefined ? undefined : postgresPid === pid ? tree : readProcessTree(postgresPid), generator: process.cpuUsage() };
  };
  let before = read();
  // Probes: a few clients calling the upstream directly during the proxy's cell. The upstream, the load generator
  // and the proxy share this machine's cores, so the proxy's CPU also slows the upstream's answers; the probes see
  // that slowdown too, and proxy minus probe is what the extra hop itself adds, under identical conditions.
  const probing =
    direct && target !== direct && PROBES > 0
      ? runClosedLoop(direct.request(delayMs, mode, 'Say hello to the benchmark'), {
          concurrency: PROBES,
          warmupMs: WARMUP_SECONDS * 1000,
          measureMs: SECONDS * 1000,
          firstByte: mode === 'stream',
          startSpreadMs: ARRIVALS === 'staggered' ? delayMs : 0,
        })
      : undefined;
  const window = await runClosedLoop(target.request(delayMs, mode, 'Say hello to the benchmark'), {
    concurrency,
    warmupMs: WARMUP_SECONDS * 1000,
    measureMs: SECONDS * 1000,
    firstByte: mode === 'stream',
    startSpreadMs: ARRIVALS === 'staggered' ? delayMs : 0,
    onWindowStart: () => (before = read()),
    onWindowEnd: () => {
      const after = read();
      const generator = process.cpuUsage(before.generator);
      const served = usedBetween(before.tree.node, after.tree.node);
      cpu.target = served.cpuSeconds;
      cpu.system = served.systemSeconds;
      cpu.reads = served.reads;
      cpu.writes = served.writes;
      if (before.postgres && after.postgres) cpu.postgres = usedBetween(before.postgres.others, after.postgres.others).cpuSeconds;
      cpu.generator = (generator.user + generator.system) / 1e6;
    },
  });
  countSuccess(target.name, window.succeeded);
  const probes = await probing;
  const requests = window.latencies.length;
  const perRequestUs = (seconds: number) => (requests > 0 ? (seconds * 1e6) / requests : Number.NaN);
  return {
    target: target.name,
    mode,
    delayMs,
    concurrency,
    requests,
    processes: servingProcesses(before.tree),
    errors: window.errors,
    firstError: window.firstError,
    throughput: requests / window.seconds,
    p50: quantile(window.latencies, 0.5),
    p99: quantile(window.latencies, 0.99),
    probeP50: probes ? quantile(probes.latencies, 0.5) : undefined,
    probeP99: probes ? quantile(probes.latencies, 0.99) : undefined,
    cpuPerRequestUs: perRequestUs(cpu.target),
    cpuCoreShare: cpu.target / window.seconds,
    systemShare: cpu.target > 0 ? cpu.system / cpu.target : Number.NaN,
    netCpuPerRequestUs: target.name === 'trellis' ? perRequestUs(cpu.target - trellisIdleCoreShare * window.seconds) : undefined,
    postgresPerRequestUs: postgresPid === undefined ? undefined : perRequestUs(cpu.postgres),
    generatorPerRequestUs: perRequestUs(cpu.generator),
    readsPerRequest: requests > 0 ? cpu.reads / requests : Number.NaN,
    writesPerRequest: requests > 0 ? cpu.writes / requests : Number.NaN,
  };
}

/** One request per target and mode, so a target that cannot serve a mode is reported, not measured. */
async function smokeCheck(target: Target, mode: Mode, delayMs: number): Promise<boolean> {
  const request = target.request(delayMs, mode, 'hi');
  const pool = new Pool(request.origin);
  try {
    const response = await pool.request({ path: request.path, method: 'POST', headers: request.headers, body: request.body });
    const text = await response.body.text();
    const ok = response.statusCode === 200 && (mode === 'plain' || text.includes('data: [DONE]'));
    if (ok) countSuccess(target.name);
    else {
      const what = `${target.name} cannot serve ${mode} here: HTTP ${response.statusCode} ${text.slice(0, 200).replace(/\s+/g, ' ')}`;
      if (target.name !== 'portkey') throw new Error(what);
      process.stdout.write(`${what}\n`);
    }
    return ok;
  } finally {
    await pool.close();
  }
}

/** The data of a GraphQL operation on the bench's team and project, as the bench's admin; throws on any error. */
async function graphqlOnTracedProject<T>(trellisUrl: string, query: string): Promise<T> {
  const pool = new Pool(trellisUrl);
  try {
    const response = await pool.request({
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ query, variables: { team: TRACED_TEAM, project: TRACED_PROJECT } }),
    });
    const text = await response.body.text();
    const body = JSON.parse(text) as { data?: T; errors?: unknown[] };
    if (response.statusCode !== 200 || body.errors || !body.data) throw new Error(`GraphQL on ${TRACED_TEAM}/${TRACED_PROJECT} failed: ${text.slice(0, 300)}`);
    return body.data;
  } finally {
    await pool.close();
  }
}

/** Creates the project Trellis' requests name, so their completions are traced there. */
async function ensureTracedProject(trellisUrl: string): Promise<void> {
  await graphqlOnTracedProject(trellisUrl, 'mutation ($team: String!, $project: String!) { ensureProject(entity: $team, name: $project) { name } }');
}

/** What Trellis recorded of the run: usage records (all its projects) and the calls traced into the bench's project. */
async function recordsOf(trellisUrl: string): Promise<{ requests: number; errors: number; tracedCalls: number }> {
  const data = await graphqlOnTracedProject<{ team: { inferenceUsage: { requests: number; errors: number }[] }; project: { callCount: number } | null }>(
    trellisUrl,
    'query ($team: String!, $project: String!) { team(name: $team) { inferenceUsage { requests errors } } project(entity: $team, name: $project) { callCount } }',
  );
  return { ...(data.team.inferenceUsage[0] ?? { requests: 0, errors: 0 }), tracedCalls: data.project?.callCount ?? 0 };
}

/** A cell's target, with its round when there are several. */
const targetLabel = (cell: Pick<Cell, 'target' | 'round'>) => (cell.round === undefined ? cell.target : `${cell.target} r${cell.round}`);

const fixed = (value: number | undefined, digits = 2) => (value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits));

function printTable(cells: Cell[]): void {
  process.stdout.write(
    '\n| upstream delay | mode | clients | offered ≤ req/s | target | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms | ' +
      'direct probes during the cell p50 / p99 ms | added vs probes p50 / p99 ms | ' +
      'throughput vs direct | proxy CPU µs/req | net of idle | proxy CPU % of a core | proxy syscalls/req (read, write) | PostgreSQL CPU µs/req | load generator CPU µs/req | errors |\n',
  );
  process.stdout.write('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n');
  for (const cell of cells) {
    const direct = cells.find(
      (c) => c.target === 'direct' && c.mode === cell.mode && c.delayMs === cell.delayMs && c.concurrency === cell.concurrency && c.round === cell.round,
    );
    const added = (value: number, base: number | undefined) => (base === undefined || cell.target === 'direct' ? '—' : fixed(value - base));
    const proxy = cell.target !== 'direct';
    process.stdout.write(
      `| ${cell.delayMs} ms | ${cell.mode === 'stream' ? 'stream (TTFB)' : 'plain'} | ${cell.concurrency} | ${cell.delayMs > 0 ? Math.round((cell.concurrency * 1000) / cell.delayMs) : '—'} | ` +
        `${targetLabel(cell)} | ${cell.throughput.toFixed(0)} | ${fixed(cell.p50)} | ${fixed(cell.p99)} | ${added(cell.p50, direct?.p50)} | ${added(cell.p99, direct?.p99)} | ` +
        `${cell.probeP50 !== undefined ? `${fixed(cell.probeP50)} / ${fixed(cell.probeP99)} | ${added(cell.p50, cell.probeP50)} / ${added(cell.p99, cell.probeP99)}` : '— | —'} | ` +
        `${direct ? (cell.throughput / direct.throughput).toFixed(2) : '—'} | ${proxy ? fixed(cell.cpuPerRequestUs, 0) : '—'} | ${fixed(cell.netCpuPerRequestUs, 0)} | ` +
        `${proxy ? fixed(cell.cpuCoreShare * 100, 0) : '—'} | ${proxy ? `${fixed(cell.readsPerRequest, 1)}, ${fixed(cell.writesPerRequest, 1)}` : '—'} | ${fixed(cell.postgresPerRequestUs, 0)} | ${fixed(cell.generatorPerRequestUs, 0)} | ${cell.errors} |\n`,
    );
  }
  const upstream = cells.filter((cell) => cell.target === 'direct' && cell.requests > 0);
  if (upstream.length > 0) {
    const mean = upstream.reduce((sum, cell) => sum + cell.cpuPerRequestUs, 0) / upstream.length;
    process.stdout.write(`\nstand-in upstream CPU, measured in the direct cells: ≈ ${mean.toFixed(0)} µs per request\n`);
  }
  const served = cells.filter((cell) => cell.target === 'trellis').map((cell) => cell.processes);
  if (served.length > 0) {
    const [fewest, most] = [Math.min(...served), Math.max(...served)];
    process.stdout.write(
      `Trellis processes serving the cells: ${fewest === most ? fewest : `${fewest}–${most}`} (${trellisProcessesSetting()}); ` +
        'its CPU figures are those of all its node processes together (the primary and its workers)\n',
    );
  }
}

/** Issue #15's verdict per cell (bench/hop-targets.ts), and Trellis' throughput against Portkey's. */
function printTargets(cells: Cell[]): void {
  // Trellis first; then the essential gateway and the control held to the same limits (bench/hop-targets.ts).
  const checks = ['trellis', 'essentials', 'control'].flatMap((target) => checkHopTargets(cells, target));
  if (checks.length > 0) {
    process.stdout.write(
      '\ntargets (issue #15): added p50 ≤ max(2 × floor, floor + 1 ms), added p99 ≤ 3 × floor; highest concurrency\n\n' +
        '| target | upstream delay | mode | clients | added against | rounds (medians) | added p50 / p99 ms | floor added p50 / p99 ms | limit p50 / p99 ms | p50 | p99 |\n' +
        '|---|---|---|---|---|---|---|---|---|---|---|\n',
    );
    for (const check of checks) {
      process.stdout.write(
        `| ${check.target} | ${check.delayMs} ms | ${check.mode} | ${check.concurrency} | ${check.baseline} | ${check.rounds} | ${fixed(check.added.p50)} / ${fixed(check.added.p99)} | ` +
          `${fixed(check.floor.p50)} / ${fixed(check.floor.p99)} | ${fixed(check.limit.p50)} / ${check.limit.p99 === undefined ? 'none (floor ≤ 0)' : fixed(check.limit.p99)} | ` +
          `${check.p50} | ${check.p99} |\n`,
      );
    }
  }
  for (const row of throughputAgainstPortkey(cells)) {
    process.stdout.write(
      `throughput ${row.delayMs} ms ${row.mode} × ${row.concurrency}: Trellis ${row.ratio.toFixed(2)}× Portkey's` +
        `${row.cap === undefined ? '' : ` (the closed loop caps any target at ${row.cap.toFixed(2)}× Portkey's here)`}\n`,
    );
  }
}

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-'));
  try {
    const upstreams = new Map<number, { pid: number; url: string }>();
    for (const delayMs of DELAYS) upstreams.set(delayMs, await startBenchServer('inference-stand-in-upstream.js', ['--delay-ms', String(delayMs)]));
    const upstreamUrl = (delayMs: number) => upstreams.get(delayMs)!.url;
    const targets: Target[] = [];
    let trellis: { pid: number; url: string } | undefined;
    let statements: PostgresStatements | undefined;
    const measuredStatements: Parameters<typeof printStatements>[0] = [];
    const direct: Target = {
      name: 'direct',
      pid: (delayMs) => upstreams.get(delayMs)!.pid,
      request: (delayMs, mode, content) => ({
        origin: upstreamUrl(delayMs),
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
        body: bodyOf('bench-model', mode, content),
      }),
    };
    if (TARGETS.includes('direct')) targets.push(direct);
    // The floor, and the control: a second, separate bare proxy judged against the floor exactly as Trellis is. When
    // the control misses a target, the run's noise alone decides that figure; Trellis' verdict there means little.
    for (const name of ['floor', 'control'] as const) {
      if (!TARGETS.includes(name)) continue;
      const proxies = new Map<number, { pid: number; url: string }>();
      for (const [delayMs, upstream] of upstreams) proxies.set(delayMs, await startBenchServer('pass-through-proxy.js', ['--upstream', upstream.url]));
      targets.push({
        name,
        pid: (delayMs) => proxies.get(delayMs)!.pid,
        request: (delayMs, mode, content) => ({
          origin: proxies.get(delayMs)!.url,
          path: '/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
          body: bodyOf('bench-model', mode, content),
        }),
      });
    }
    if (TARGETS.includes('trellis')) {
      const upstreamUrls = new Map([...upstreams].map(([delayMs, upstream]) => [delayMs, upstream.url]));
      trellis = await startTrellis(upstreamUrls, dataDir);
      await ensureTracedProject(trellis.url);
      if (POSTGRES_STATEMENTS) statements = await PostgresStatements.connect(dataDir);
      const origin = trellis.url;
      const trellisPid = trellis.pid;
      if (TARGETS.includes('essentials')) {
        // The essential gateway writes its rows into Trellis' embedded PostgreSQL (its own schema), so its database
        // work is measured on the same server as Trellis'.
        const databaseUrl = await embeddedSuperuserUrl(dataDir);
        const gateways = new Map<number, { pid: number; url: string }>();
        for (const [delayMs, upstream] of upstreams) gateways.set(delayMs, await startBenchServer('essential-gateway.js', ['--upstream', upstream.url, '--database', databaseUrl, '--api-key', API_KEY]));
        targets.push({
          name: 'essentials',
          pid: (delayMs) => gateways.get(delayMs)!.pid,
          postgresPid: trellisPid,
          request: (delayMs, mode, content) => ({
            origin: gateways.get(delayMs)!.url,
            path: '/v1/chat/completions',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
            body: bodyOf(modelFor(delayMs), mode, content),
          }),
        });
      }
      targets.push({
        name: 'trellis',
        pid: () => trellisPid,
        postgresPid: trellisPid,
        request: (delayMs, mode, content) => ({
          origin,
          path: '/inference/v1/chat/completions',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}`, 'openai-project': `${TRACED_TEAM}/${TRACED_PROJECT}` },
          body: bodyOf(modelFor(delayMs), mode, content),
        }),
      });
    }
    if (TARGETS.includes('portkey')) {
      try {
        const portkey = await startPortkey();
        targets.push({
          name: 'portkey',
          pid: () => portkey.pid,
          request: (delayMs, mode, content) => ({
            origin: portkey.url,
            path: '/v1/chat/completions',
            headers: {
              'content-type': 'application/json',
              authorization: 'Bearer sk-bench',
              'x-portkey-provider': 'openai',
              'x-portkey-custom-host': `${upstreamUrl(delayMs)}/v1`,
            },
            body: bodyOf('bench-model', mode, content),
          }),
        });
      } catch (error) {
        process.stdout.write(`portkey could not be started: ${(error as Error).message}\n`);
      }
    }
    const unsupported = new Set<string>();
    for (const target of targets) {
      for (const mode of ['plain', 'stream'] as const) {
        if (!(await smokeCheck(target, mode, DELAYS[0]!))) unsupported.add(`${target.name}/${mode}`);
      }
    }

    // What Trellis burns with no requests (background workers, timers), after start-up work has settled; it is
    // included in the per-request figures (and shown separately, to read them at low request rates). Of all its
    // processes together, as the cells measure them.
    if (trellis) {
      await sleep(3_000);
      const idleBefore = readProcessTree(trellis.pid);
      const idleFrom = performance.now();
      await sleep(3_000);
      const idleAfter = readProcessTree(trellis.pid);
      trellisIdleCoreShare = usedBetween(idleBefore.node, idleAfter.node).cpuSeconds / ((performance.now() - idleFrom) / 1000);
      process.stdout.write(
        `trellis: ${servingProcesses(idleAfter)} serving process(es) (${trellisProcessesSetting()}); ` +
          `idle CPU: ${(trellisIdleCoreShare * 100).toFixed(1)} % of a core\n`,
      );
    }
    process.stdout.write(
      `inference benchmark: upstream delays ${DELAYS.join(', ')} ms, ${ARRIVALS} arrivals, ${WARMUP_SECONDS}s warm-up + ${SECONDS}s per cell, ` +
        `node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}\n`,
    );
    const cells: Cell[] = [];
    const highest = Math.max(...CONCURRENCIES);
    for (const delayMs of DELAYS) {
      for (const mode of MODES) {
        for (const concurrency of CONCURRENCIES) {
          for (const { target, round } of cellOrder(targets, concurrency === highest ? ROUNDS : 1)) {
            if (unsupported.has(`${target.name}/${mode}`)) continue;
            const readsStatements = statements && target.name === 'trellis' && concurrency === highest;
            if (readsStatements) await statements!.reset();
            const servedBefore = succeeded.get(target.name) ?? 0;
            const cell: Cell = { ...(await runCell(target, mode, delayMs, concurrency, direct)), ...(round === undefined ? {} : { round }) };
            cells.push(cell);
            if (readsStatements) {
              const served = (succeeded.get(target.name) ?? 0) - servedBefore;
              measuredStatements.push({ cell: `${delayMs} ms ${mode} × ${concurrency} ${targetLabel(cell)}`, figures: await statements!.read(served) });
            }
            process.stdout.write(
              `delay ${String(delayMs).padStart(3)} ms ${mode.padEnd(6)} c=${String(concurrency).padEnd(4)} ${targetLabel(cell).padEnd(8)} ` +
                `${target.name === 'trellis' ? `(${cell.processes} proc) ` : ''}` +
                `${cell.throughput.toFixed(0).padStart(6)} req/s  p50 ${fixed(cell.p50).padStart(7)} ms  p99 ${fixed(cell.p99).padStart(7)} ms  ` +
                `${cell.probeP50 !== undefined ? `(probes p50 ${fixed(cell.probeP50)} p99 ${fixed(cell.probeP99)})  ` : ''}` +
                `cpu ${fixed(cell.cpuPerRequestUs, 0).padStart(5)} µs/req (${fixed(cell.cpuCoreShare * 100, 0)} % of a core, ${fixed(cell.systemShare * 100, 0)} % kernel)  ` +
                `syscalls/req r ${fixed(cell.readsPerRequest, 1)} w ${fixed(cell.writesPerRequest, 1)}  errors ${cell.errors}` +
                `${cell.firstError ? ` (first: ${cell.firstError.slice(0, 120)})` : ''}  load ${os.loadavg()[0]!.toFixed(2)}\n`,
            );
          }
        }
      }
    }
    printTable(cells);
    printTargets(cells);
    printStatements(measuredStatements);
    await statements?.close();
    if (CELLS_JSON) await writeFile(CELLS_JSON, JSON.stringify(cells));
    if (trellis) {
      // Usage records are written off the request path (batched); after a flush interval every successful
      // request must have its record, and its traced call (the tracing subgraph consumes the completion events).
      await sleep(2_000);
      const records = await recordsOf(trellis.url);
      process.stdout.write(
        `\nusage records: ${records.requests} written (${records.errors} errors) for ${succeeded.get('trellis') ?? 0} successful Trellis responses; ` +
          `traced calls in ${TRACED_TEAM}/${TRACED_PROJECT}: ${records.tracedCalls}\n`,
      );
    }
    process.stdout.write(`load average at the end: ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}\n`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(1500);
    await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
