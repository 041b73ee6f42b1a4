import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

/**
 * Inference overhead benchmark: the same stand-in OpenAI-compatible upstream (own process, fixed delay) called
 * directly, through Trellis (`npm start`'s process: REST adapter → inference subgraph → upstream) and
 * through the Portkey AI gateway (own process), side by side in one run, plain and streaming, at several
 * concurrencies. Closed loop: each client sends its next request when the previous one is done.
 *
 *   npm run build && LOG_LEVEL=warn node dist/bench/inference.js [--delay-ms 50] [--seconds 5] [--concurrency 1,50,200]
 *     [--targets direct,trellis,portkey] [--modes plain,stream]
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1]! : fallback;
};
const DELAY_MS = Number(option('delay-ms', '50'));
const SECONDS = Number(option('seconds', '5'));
const WARMUP_SECONDS = Number(option('warmup-seconds', '2'));
const CONCURRENCIES = option('concurrency', '1,50,200').split(',').map(Number);
const TARGETS = option('targets', 'direct,trellis,portkey').split(',');
const MODES = option('modes', 'plain,stream').split(',') as ('plain' | 'stream')[];
const API_KEY = 'bench-admin-key-0123456789abcdefghijkl';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const children: ChildProcess[] = [];

interface Target {
  name: string;
  origin: string;
  path: string;
  headers: Record<string, string>;
  model: string;
}

/** Successful responses per target over the whole run (warm-up and smoke requests included). */
const succeeded = new Map<string, number>();
const countSuccess = (target: string) => succeeded.set(target, (succeeded.get(target) ?? 0) + 1);

interface Result {
  target: string;
  mode: 'plain' | 'stream';
  concurrency: number;
  requests: number;
  errors: number;
  throughput: number;
  p50: number;
  p99: number;
}

/** Starts a process and resolves with the first stdout line that `match` accepts. */
function startProcess(
  command: string,
  argv: string[],
  env: Record<string, string>,
  match: (line: string) => string | undefined,
  stderr: 'inherit' | 'ignore' = 'inherit',
): Promise<string> {
  const child = spawn(command, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', stderr] });
  children.push(child);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const found = match(line.replace(/\x1b\[[0-9;]*m/g, ''));
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`${command} ${argv.join(' ')} exited with ${code} before it was ready`)));
  });
}

async function startUpstream(): Promise<string> {
  const line = await startProcess(process.execPath, [path.join(here, 'inference-stand-in-upstream.js'), '--delay-ms', String(DELAY_MS)], {}, (l) =>
    l.startsWith('{"port"') ? l : undefined,
  );
  return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
}

async function startTrellis(upstream: string, dataDir: string): Promise<string> {
  const modelsFile = path.join(dataDir, 'models.json');
  await writeFile(
    modelsFile,
    JSON.stringify({ models: [{ id: 'bench-model', backend: 'openai-compatible', deployments: [{ base_url: `${upstream}/v1`, api_key: 'sk-bench' }] }] }),
  );
  return startProcess(
    process.execPath,
    [...(process.env.BENCH_TRELLIS_NODE_ARGS ?? '').split(' ').filter(Boolean), path.join(root, 'dist', 'platform', 'main.js')],
    {
      PORT: '0',
      TRELLIS_DATA_DIR: dataDir,
      TRELLIS_BOOTSTRAP_API_KEY: API_KEY,
      TRELLIS_MODELS_FILE: modelsFile,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
    (l) => /Trellis is running at (http:\/\/\S+)/.exec(l)?.[1],
  );
}

async function startPortkey(): Promise<string> {
  const port = 18_000 + Math.floor(Math.random() * 10_000);
  const entry = path.join(root, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  // Portkey logs a stack trace per failed request on stderr; failures are counted by the smoke checks instead.
  await startProcess(
    process.execPath,
    [entry, `--port=${port}`, '--headless'],
    { NODE_ENV: 'production' },
    (l) => (l.includes('Ready for connections') || l.includes(`:${port}`) ? 'ready' : undefined),
    'ignore',
  );
  return `http://127.0.0.1:${port}`;
}

async function runLoad(target: Target, mode: 'plain' | 'stream', concurrency: number): Promise<Result> {
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 });
  const body = JSON.stringify({
    model: target.model,
    messages: [{ role: 'user', content: 'Say hello to the benchmark' }],
    ...(mode === 'stream' ? { stream: true } : {}),
  });
  const latencies: number[] = [];
  let errors = 0;
  let recording = false;
  let running = true;
  const one = async () => {
    const started = performance.now();
    const response = await pool.request({ path: target.path, method: 'POST', headers: target.headers, body });
    let firstByte = 0;
    for await (const _chunk of response.body) {
      if (!firstByte) firstByte = performance.now();
    }
    const finished = performance.now();
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
    return mode === 'stream' ? firstByte - started : finished - started;
  };
  const client = async () => {
    while (running) {
      try {
        const latency = await one();
        countSuccess(target.name);
        if (recording) latencies.push(latency);
      } catch {
        if (recording) errors++;
      }
    }
  };
  const clients = Array.from({ length: concurrency }, client);
  await sleep(WARMUP_SECONDS * 1000);
  recording = true;
  const started = performance.now();
  await sleep(SECONDS * 1000);
  recording = false;
  const elapsed = (performance.now() - started) / 1000;
  running = false;
  await Promise.all(clients);
  await pool.close();
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    target: target.name,
    mode,
    concurrency,
    requests: latencies.length,
    errors,
    throughput: latencies.length / elapsed,
    p50: quantile(0.5),
    p99: quantile(0.99),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-'));
  try {
    const upstream = await startUpstream();
    const targets: Target[] = [];
    if (TARGETS.includes('direct')) {
      targets.push({ name: 'direct', origin: upstream, path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' }, model: 'bench-model' });
    }
    if (TARGETS.includes('trellis')) {
      const trellis = await startTrellis(upstream, dataDir);
      targets.push({
        name: 'trellis',
        origin: trellis,
        path: '/inference/v1/chat/completions',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
        model: 'bench-model',
      });
    }
    if (TARGETS.includes('portkey')) {
      try {
        const portkey = await startPortkey();
        targets.push({
          name: 'portkey',
          origin: portkey,
          path: '/v1/chat/completions',
          headers: {
            'content-type': 'application/json',
            authorization: 'Bearer sk-bench',
            'x-portkey-provider': 'openai',
            'x-portkey-custom-host': `${upstream}/v1`,
          },
          model: 'bench-model',
        });
      } catch (error) {
        process.stdout.write(`portkey could not be started: ${(error as Error).message}\n`);
      }
    }
    // One smoke request per target and mode, so a target that cannot serve a mode is reported, not measured.
    const unsupported = new Set<string>();
    for (const target of targets) {
      for (const mode of ['plain', 'stream'] as const) {
        const pool = new Pool(target.origin);
        const response = await pool.request({
          path: target.path,
          method: 'POST',
          headers: target.headers,
          body: JSON.stringify({ model: target.model, messages: [{ role: 'user', content: 'hi' }], ...(mode === 'stream' ? { stream: true } : {}) }),
        });
        const text = await response.body.text();
        await pool.close();
        const ok = response.statusCode === 200 && (mode === 'plain' || text.includes('data: [DONE]'));
        if (ok) countSuccess(target.name);
        if (!ok) {
          if (target.name === 'trellis' || target.name === 'direct') throw new Error(`${target.name} ${mode} failed: ${response.statusCode} ${text.slice(0, 300)}`);
          unsupported.add(`${target.name}/${mode}`);
          process.stdout.write(`${target.name} cannot serve ${mode} here: HTTP ${response.statusCode} ${text.slice(0, 200).replace(/\s+/g, ' ')}\n`);
        }
      }
    }

    process.stdout.write(
      `inference benchmark: upstream delay ${DELAY_MS} ms, ${WARMUP_SECONDS}s warm-up + ${SECONDS}s per cell, node ${process.version}, ${os.cpus().length} cores\n`,
    );
    const results: Result[] = [];
    for (const mode of MODES) {
      for (const concurrency of CONCURRENCIES) {
        for (const target of targets) {
          if (unsupported.has(`${target.name}/${mode}`)) continue;
          const result = await runLoad(target, mode, concurrency);
          results.push(result);
          process.stdout.write(
            `${mode.padEnd(6)} c=${String(concurrency).padEnd(4)} ${target.name.padEnd(8)} ${result.throughput.toFixed(0).padStart(6)} req/s  ` +
              `p50 ${result.p50.toFixed(2).padStart(7)} ms  p99 ${result.p99.toFixed(2).padStart(7)} ms  errors ${result.errors}\n`,
          );
        }
      }
    }
    process.stdout.write('\n| mode | clients | target | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms | throughput vs direct | errors |\n');
    process.stdout.write('|---|---|---|---|---|---|---|---|---|---|\n');
    for (const result of results) {
      const direct = results.find((r) => r.target === 'direct' && r.mode === result.mode && r.concurrency === result.concurrency);
      const added = (value: number, base: number | undefined) => (base === undefined || result.target === 'direct' ? '—' : (value - base).toFixed(2));
      process.stdout.write(
        `| ${result.mode === 'stream' ? 'stream (TTFB)' : 'plain'} | ${result.concurrency} | ${result.target} | ${result.throughput.toFixed(0)} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ` +
          `${added(result.p50, direct?.p50)} | ${added(result.p99, direct?.p99)} | ${direct ? (result.throughput / direct.throughput).toFixed(2) : '—'} | ${result.errors} |\n`,
      );
    }
    const trellis = targets.find((target) => target.name === 'trellis');
    if (trellis) {
      // Usage records are written off the request path (batched); after one flush interval every successful
      // request must have its record.
      await sleep(2_000);
      const pool = new Pool(trellis.origin);
      const response = await pool.request({
        path: '/graphql',
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
        body: JSON.stringify({ query: '{ team(name: "trellis") { inferenceUsage { requests errors } } }' }),
      });
      const usage = ((await response.body.json()) as { data: { team: { inferenceUsage: { requests: number; errors: number }[] } } }).data.team
        .inferenceUsage[0];
      await pool.close();
      process.stdout.write(
        `\nusage records: ${usage?.requests ?? 0} written (${usage?.errors ?? 0} errors) for ${succeeded.get('trellis') ?? 0} successful Trellis responses\n`,
      );
    }
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
