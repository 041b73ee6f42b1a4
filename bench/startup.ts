import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../platform/db/embedded-postgres.js';
import { REPO_ROOT, rssMiB, startService, summarize, waitUntilOk, type Service } from './support.js';

/**
 * Start-up: seconds from launch to /healthz ready on an existing data directory (embedded PostgreSQL), and idle
 * RSS of the platform process and of the PostgreSQL processes. Measured for `node dist/platform/main.js` and for
 * `npm start` (which adds the incremental build check).
 *   npm run build && node dist/bench/startup.js
 */
const RUNS = Number(process.env.RUNS ?? 5);
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-startup-'));
const env = { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', TRELLIS_DATA_DIR: dataDir, TRELLIS_BOOTSTRAP_API_KEY: 'bench-bootstrap-key-0123456789', DATABASE_URL: '' };

function launchNpmStart(port: number): Service {
  // detached: npm runs the platform in a child shell; signal the whole process group to stop it.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  return {
    child,
    output: () => '',
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        process.kill(-child.pid!, 'SIGTERM');
      }),
  };
}

async function postgresRss(): Promise<number> {
  const pids = execFileSync('pgrep', ['-f', `postgres -D ${path.join(dataDir, 'postgres')}`]).toString().trim().split('\n');
  const children = execFileSync('pgrep', ['-P', pids.join(',')]).toString().trim().split('\n');
  let total = 0;
  for (const pid of [...pids, ...children]) total += await rssMiB(Number(pid)).catch(() => 0);
  return total;
}

async function timeStart(command: 'node' | 'npm', measureRss = false) {
  const port = await freePort();
  const started = performance.now();
  const service = command === 'node' ? startService('platform/main.js', [], { ...env, PORT: String(port) }) : launchNpmStart(port);
  try {
    await waitUntilOk(`http://127.0.0.1:${port}/healthz`, Number(process.env.START_TIMEOUT_MS ?? 120_000));
  } catch (error) {
    console.error(service.output());
    throw error;
  }
  const ms = performance.now() - started;
  let rss: { node: number; postgres: number } | undefined;
  if (measureRss) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    rss = { node: await rssMiB(service.child.pid!), postgres: await postgresRss() };
  }
  await service.stop();
  return { ms, rss };
}

await timeStart('node'); // the first start initialises the cluster and migrates: not counted
const node: number[] = [];
const npm: number[] = [];
let rss: { node: number; postgres: number } | undefined;
for (let run = 0; run < RUNS; run += 1) {
  const result = await timeStart('node', run === RUNS - 1);
  node.push(result.ms);
  rss ??= result.rss;
  npm.push((await timeStart('npm')).ms);
}
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
console.log(`start-up to /healthz ready on an existing data directory, ${RUNS} runs each (median / max):`);
console.log(`  node dist/platform/main.js   ${seconds(summarize(node).median)} / ${seconds(Math.max(...node))}`);
console.log(`  npm start (incl. build check) ${seconds(summarize(npm).median)} / ${seconds(Math.max(...npm))}`);
console.log(`idle RSS 2 s after ready: platform process ${rss!.node.toFixed(0)} MiB, embedded PostgreSQL (all processes) ${rss!.postgres.toFixed(0)} MiB`);
await rm(dataDir, { recursive: true, force: true });
