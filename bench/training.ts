/**
 * Family C benchmark: the training API while jobs train.
 *   1. submission → training_started latency (client-observed, polling events every 5 ms), small RL jobs;
 *   2. /training/v1/health and the events endpoint, p50/p99, idle vs. while a long job trains (target: health p99
 *      during training within 3× of idle) — the trainer runs in a worker thread, so the API thread stays free;
 *   3. jobs per minute on small RL jobs with one worker vs. two (TRELLIS_TRAINING_CONCURRENCY), same run, each after
 *      warm-up jobs that start its warm trainer threads (one per worker);
 *   4. what a warm thread saves per job: the same small RL job trained directly on a fresh worker thread per job
 *      (model-runtime's runTrainingInWorker, what the trainer did before) vs. on a WarmTrainerPool thread, alternating.
 * PostgreSQL: DATABASE_URL (a server URL; a fresh database per phase) or an embedded server in a temp dir.
 * Run: npm run build && node dist/bench/training.js [--jobs 12]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../platform/config.js';
import { createDatabase } from '../platform/db/connection.js';
import { startEmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/logger.js';
import { startPlatform, type RunningPlatform } from '../server/platform.js';
import { DEFAULT_MODEL_DIR, runTrainingInWorker, type WorkerTrainingJob } from '../model-runtime/index.js';
import { WarmTrainerPool } from '../subgraphs/training/trainer/warm-trainer-pool.js';
import { fmt, summarize } from './support.js';

const KEY = 'bench-admin-key-0123456789abcdefghij';
const JOBS = Number(process.argv[process.argv.indexOf('--jobs') + 1]) || 12;

interface Api {
  platform: RunningPlatform;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function start(databaseUrl: string, tmp: string, concurrency: number): Promise<Api> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    TRELLIS_BOOTSTRAP_API_KEY: KEY,
    TRELLIS_DATA_DIR: tmp,
    LOG_LEVEL: 'warn',
    TRELLIS_TRAINING_CONCURRENCY: String(concurrency),
  });
  const platform = await startPlatform({ config, logger: createLogger({ level: 'warn' }) });
  return {
    platform,
    async call(method, route, body) {
      const response = await fetch(`${platform.url}/training${route}`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: await response.json() };
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createModel(api: Api, name: string): Promise<string> {
  const { body } = await api.call('POST', '/v1/preview/models', { entity: null, project: 'bench', name, base_model: 'trellis-tiny', return_existing: true });
  return body.id;
}

/** One small group of rollouts sampled through the API with logprobs (ART's way). */
async function sampleGroups(api: Api): Promise<unknown[]> {
  const messages = [{ role: 'user', content: 'Name a city.' }];
  const { body } = await api.call('POST', '/v1/chat/completions', { model: 'trellis-tiny', messages, n: 4, max_tokens: 8, seed: 1, logprobs: true });
  return [{ trajectories: body.choices.map((choice: { message: { content: string } }, i: number) => ({ messages_and_choices: [...messages, choice], reward: i })) }];
}

async function waitForEvent(api: Api, jobId: string, type: string, pollMs: number): Promise<void> {
  for (;;) {
    const { body } = await api.call('GET', `/v1/preview/training-jobs/${jobId}/events?limit=100`);
    if (body.data.some((event: { type: string }) => event.type === type)) return;
    if (body.data.some((event: { type: string }) => event.type === 'training_failed')) throw new Error(`job ${jobId} failed: ${JSON.stringify(body.data)}`);
    await sleep(pollMs);
  }
}

async function timeRequests(api: Api, route: string, durationMs: number): Promise<number[]> {
  const samples: number[] = [];
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const started = performance.now();
    const response = await fetch(`${api.platform.url}/training${route}`, { headers: { authorization: `Bearer ${KEY}` } });
    await response.arrayBuffer();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Runs `threads` jobs at once so that many warm trainer threads exist (and their JIT is warm) before measuring. */
async function warmUp(api: Api, groups: unknown[], threads: number): Promise<void> {
  const models = await Promise.all(Array.from({ length: threads }, (_, i) => createModel(api, `warm-up-${Date.now()}-${i}`)));
  const ids = await Promise.all(models.map(async (model) => (await api.call('POST', '/v1/preview/training-jobs', { model_id: model, trajectory_groups: groups })).body.id));
  for (const id of ids) await waitForEvent(api, id, 'training_ended', 20);
}

async function jobsPerMinute(api: Api, groups: unknown[], jobs: number): Promise<number> {
  const models = await Promise.all(Array.from({ length: jobs }, (_, i) => createModel(api, `throughput-${Date.now()}-${i}`)));
  const started = performance.now();
  const ids = [];
  for (const modelId of models) ids.push((await api.call('POST', '/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: groups })).body.id);
  for (const id of ids) await waitForEvent(api, id, 'training_ended', 50);
  return (jobs / (performance.now() - started)) * 60_000;
}

/** Per-job wall time of one small RL job on a fresh thread vs. a warm one, alternating so load drifts hit both. */
async function threadCost(groups: unknown[], rounds: number): Promise<{ fresh: number[]; warm: number[] }> {
  const job = { kind: 'rl', trajectoryGroups: groups, config: {} } as unknown as WorkerTrainingJob;
  const pool = new WarmTrainerPool(DEFAULT_MODEL_DIR, 1);
  await pool.train(job); // starts the warm thread
  const fresh: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let started = performance.now();
    await runTrainingInWorker(DEFAULT_MODEL_DIR, job);
    fresh.push(performance.now() - started);
    started = performance.now();
    await pool.train(job);
    warm.push(performance.now() - started);
  }
  await pool.close();
  return { fresh, warm };
}

async function main() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'trellis-bench-c-'));
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
  const serverUrl = process.env.DATABASE_URL ?? embedded!.url;
  const lines: string[] = [`Family C training benchmark (${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${embedded ? 'embedded' : 'DATABASE_URL'}, ${JOBS} small RL jobs per throughput phase)`];

  // Phases 1 and 2 (and throughput with one worker) on a platform with one training worker.
  const one = await start(await createDatabase(serverUrl, `bench_c1_${Date.now()}`), tmp, 1);
  const groups = await sampleGroups(one);
  // Warm-up: the first job pays for worker-thread start and JIT.
  const warm = await createModel(one, 'warm-up');
  await waitForEvent(one, (await one.call('POST', '/v1/preview/training-jobs', { model_id: warm, trajectory_groups: groups })).body.id, 'training_ended', 20);

  const startLatency: number[] = [];
  for (let i = 0; i < 10; i++) {
    const model = await createModel(one, `latency-${i}`);
    const submitted = performance.now();
    const { body } = await one.call('POST', '/v1/preview/training-jobs', { model_id: model, trajectory_groups: groups });
    await waitForEvent(one, body.id, 'training_started', 5);
    startLatency.push(performance.now() - submitted);
    await waitForEvent(one, body.id, 'training_ended', 20);
  }
  const latency = summarize(startLatency);
  lines.push(`submission → training_started (client-observed, 5 ms polling, n=${latency.n}): median ${fmt(latency.median)}, p99 ${fmt(latency.p99)}`);

  const idleJob = (await one.call('POST', '/v1/preview/training-jobs', { model_id: warm, trajectory_groups: groups })).body.id;
  await waitForEvent(one, idleJob, 'training_ended', 20);
  const idleHealth = summarize(await timeRequests(one, '/v1/health', 5_000));
  const idleEvents = summarize(await timeRequests(one, `/v1/preview/training-jobs/${idleJob}/events`, 5_000));

  const longModel = await createModel(one, 'long');
  const long = (await one.call('POST', '/v1/preview/training-jobs', { model_id: longModel, trajectory_groups: groups, experimental_config: { epochs: 100_000 } })).body.id;
  await waitForEvent(one, long, 'training_started', 10);
  const busyHealth = summarize(await timeRequests(one, '/v1/health', 5_000));
  const busyEvents = summarize(await timeRequests(one, `/v1/preview/training-jobs/${long}/events`, 5_000));
  await one.call('POST', `/v1/preview/training-jobs/${long}/cancel`);
  // The cancelled job's thread was terminated; its replacement warms up before the throughput phase.
  await warmUp(one, groups, 1);
  lines.push(
    `/v1/health: idle median ${fmt(idleHealth.median)} p99 ${fmt(idleHealth.p99)} (n=${idleHealth.n}); while training median ${fmt(busyHealth.median)} p99 ${fmt(busyHealth.p99)} (n=${busyHealth.n}); p99 ratio ${(busyHealth.p99 / idleHealth.p99).toFixed(2)}×`,
    `events endpoint: idle median ${fmt(idleEvents.median)} p99 ${fmt(idleEvents.p99)}; while training median ${fmt(busyEvents.median)} p99 ${fmt(busyEvents.p99)}; p99 ratio ${(busyEvents.p99 / idleEvents.p99).toFixed(2)}×`,
  );
  await sleep(500);
  const perMinuteOne = await jobsPerMinute(one, groups, JOBS);
  await one.platform.close();

  const two = await start(await createDatabase(serverUrl, `bench_c2_${Date.now()}`), tmp, 2);
  await warmUp(two, groups, 2);
  const perMinuteTwo = await jobsPerMinute(two, groups, JOBS);
  await two.platform.close();
  lines.push(`jobs per minute (small RL jobs, one step each): one worker ${perMinuteOne.toFixed(1)}, two workers ${perMinuteTwo.toFixed(1)} (${(perMinuteTwo / perMinuteOne).toFixed(2)}×)`);
  const cost = await threadCost(groups, 6);
  const [freshJob, warmJob] = [summarize(cost.fresh), summarize(cost.warm)];
  lines.push(
    `one small RL job, trainer only (n=${freshJob.n} each, alternating): fresh thread per job median ${fmt(freshJob.median)}, warm thread median ${fmt(warmJob.median)} (${(freshJob.median / warmJob.median).toFixed(1)}× faster warm)`,
  );

  console.log(lines.join('\n'));
  await embedded?.stop();
  await rm(tmp, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
