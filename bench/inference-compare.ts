/**
 * Two Trellis builds (or two sets of Node flags, or of environment) under the same inference load, alternating, in pairs: on these
 * machines one build measured twice varies by 20–30 % in CPU per request and more in p99, so only alternating runs
 * and their medians can tell a change from the spread. Each run is one `bench/inference.ts` process (its own
 * upstream and Trellis, Trellis cells only); the order inside a pair alternates, so drift of the machine during
 * the comparison weighs on both sides alike.
 *
 *   npm run build && node dist/bench/inference-compare.js --baseline /other/checkout/dist/server/main.js [--pairs 3]
 *       [--baseline-node-args "--max-semi-space-size=16"] [--candidate-node-args "…"]
 *       [--baseline-env KEY=VALUE]… [--candidate-env KEY=VALUE]… [-- <bench/inference.ts options>]
 *
 * The candidate is this checkout's dist/server/main.js (`--candidate` for another). Without `--baseline`, both
 * sides run the candidate build: compare Node flags with the two `--…-node-args`, or environments with the
 * repeatable `--…-env` (that side's Trellis only; e.g. `--baseline-env TRELLIS_PROCESSES=1`: one process against
 * the platform's default cluster). Default load: 50 ms upstream, 200 clients, plain and stream, 5 s per cell.
 * Prints every run, then per cell the medians and candidate / baseline.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, type HopCell } from './hop-targets.js';

/** The fields of bench/inference.ts's cells this comparison reads: a cell's latencies, and what it cost. */
interface MeasuredCell extends HopCell {
  cpuPerRequestUs: number;
  /** Trellis processes that served the cell (a cluster's workers, or 1). */
  processes: number;
  errors: number;
}

interface Side {
  label: 'baseline' | 'candidate';
  main: string;
  nodeArgs: string;
  /** Environment of that side's Trellis (bench/inference.ts's BENCH_TRELLIS_ENV). */
  env: Record<string, string>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const separator = process.argv.indexOf('--');
const own = separator >= 0 ? process.argv.slice(2, separator) : process.argv.slice(2);
const passed = separator >= 0 ? process.argv.slice(separator + 1) : [];
const option = (name: string, fallback: string) => {
  const index = own.indexOf(`--${name}`);
  return index >= 0 ? own[index + 1]! : fallback;
};
/** The KEY=VALUE of every `--<name> KEY=VALUE` (repeatable). */
const envOption = (name: string) => {
  const env: Record<string, string> = {};
  own.forEach((arg, index) => {
    if (arg !== `--${name}`) return;
    const entry = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(own[index + 1] ?? '');
    if (!entry) throw new Error(`--${name} takes KEY=VALUE, not ${own[index + 1]}`);
    env[entry[1]!] = entry[2]!;
  });
  return env;
};
const candidateMain = path.resolve(option('candidate', path.join(here, '..', 'server', 'main.js')));
const sides: Side[] = [
  { label: 'baseline', main: path.resolve(option('baseline', candidateMain)), nodeArgs: option('baseline-node-args', ''), env: envOption('baseline-env') },
  { label: 'candidate', main: candidateMain, nodeArgs: option('candidate-node-args', ''), env: envOption('candidate-env') },
];
const PAIRS = Number(option('pairs', '3'));
const loadOptions = passed.length > 0 ? passed : ['--delays', '50', '--concurrency', '200', '--seconds', '5', '--warmup-seconds', '2'];

async function runOnce(side: Side, file: string): Promise<MeasuredCell[]> {
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(here, 'inference.js'), ...loadOptions, '--targets', 'trellis', '--probes', '0', '--cells-json', file], {
      env: {
        ...process.env,
        BENCH_TRELLIS_MAIN: side.main,
        BENCH_TRELLIS_NODE_ARGS: side.nodeArgs,
        BENCH_TRELLIS_ENV: JSON.stringify(side.env),
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`bench/inference.ts exited with ${code} for the ${side.label}`);
  return (JSON.parse(await readFile(file, 'utf8')) as MeasuredCell[]).filter((cell) => cell.target === 'trellis');
}

const cellName = (cell: MeasuredCell) => `${cell.delayMs} ms ${cell.mode} × ${cell.concurrency}`;

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-compare-'));
  try {
    for (const side of sides) {
      const env = Object.entries(side.env).map(([key, value]) => `${key}=${value}`);
      console.log(`${side.label}: ${side.main}${side.nodeArgs ? ` with ${side.nodeArgs}` : ''}${env.length > 0 ? `, env ${env.join(' ')}` : ''}`);
    }
    console.log(`load: ${loadOptions.join(' ')}; ${PAIRS} pairs, order alternating\n`);
    const runs = new Map<string, Record<Side['label'], MeasuredCell[]>>();
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const cells = await runOnce(side, path.join(dir, `${pair}-${side.label}.json`));
        for (const cell of cells) {
          const entry = runs.get(cellName(cell)) ?? { baseline: [], candidate: [] };
          entry[side.label].push(cell);
          runs.set(cellName(cell), entry);
          console.log(
            `pair ${pair + 1} ${side.label.padEnd(9)} ${cellName(cell).padEnd(22)} ${cell.throughput.toFixed(0).padStart(5)} req/s  ` +
              `p50 ${cell.p50.toFixed(2).padStart(7)}  p99 ${cell.p99.toFixed(2).padStart(7)} ms  CPU ${cell.cpuPerRequestUs.toFixed(0).padStart(4)} µs/req  ` +
              `${cell.processes} proc  ` +
              `errors ${cell.errors}  load ${os.loadavg()[0]!.toFixed(2)}`,
          );
        }
      }
    }
    console.log('\n| cell | CPU µs/req baseline → candidate (ratio) | p50 ms | p99 ms | req/s |');
    console.log('|---|---|---|---|---|');
    for (const [name, { baseline, candidate }] of runs) {
      const pick = (cells: MeasuredCell[], field: keyof MeasuredCell) => median(cells.map((cell) => cell[field] as number));
      const both = (field: keyof MeasuredCell, digits: number) =>
        `${pick(baseline, field).toFixed(digits)} → ${pick(candidate, field).toFixed(digits)}`;
      const ratio = pick(candidate, 'cpuPerRequestUs') / pick(baseline, 'cpuPerRequestUs');
      console.log(`| ${name} | ${both('cpuPerRequestUs', 0)} (${ratio.toFixed(2)}) | ${both('p50', 2)} | ${both('p99', 2)} | ${both('throughput', 0)} |`);
    }
    console.log('\nmedians of the runs; CPU is what the Trellis processes (the primary and its workers) used per answered request (all threads)');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
