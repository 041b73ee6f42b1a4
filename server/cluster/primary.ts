import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { servePrimaryRequests } from '../../platform/cluster/ipc.js';
import type { PlatformConfig } from '../../platform/config.js';
import { loadTlsCredentials } from '../../platform/http/tls.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../platform/db/embedded-postgres.js';
import { clusterMetricsHandlers } from '../../platform/http/metrics.js';
import type { Logger } from '../../platform/logger.js';
import { createModelLimiter } from '../../platform/model-access/limits.js';
import { ModelLimitsHost } from '../../platform/model-access/shared-limits.js';
import { PROCESS_INDEX_ENV, READY_NOTICE } from './worker.js';

export interface ClusterPrimary {
  /** Resolves with the platform's URL once every process answers; rejects if one could not start. */
  ready: Promise<string>;
  processes: number;
  /**
   * Stops every process (each drains its requests), then PostgreSQL; at any time, start-up included. Resolves true
   * when every process stopped cleanly.
   */
  close(): Promise<boolean>;
}

/** A process that died after start-up is forked again after this delay, doubled per quick death up to a minute. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 60_000;
/** Alive this long: the next death starts from the first delay again. */
const STABLE_AFTER_MS = 60_000;
/** Beyond the processes' own drain timeout, how long to wait before killing a process that did not stop. */
const STOP_GRACE_MS = 15_000;

/**
 * `npm start` on a machine with several cores: this process owns what there is one of — embedded PostgreSQL, the
 * model limits, the aggregated metrics — and forks `config.processes` identical platform processes that share the
 * port (node:cluster hands each new connection to the next process). It serves no request itself.
 */
export function startClusterPrimary(config: PlatformConfig, logger: Logger): ClusterPrimary {
  let embedded: RunningPostgres | undefined;
  let databaseUrl = config.databaseUrl;

  const limits = new ModelLimitsHost(createModelLimiter(config));
  const readyWaiters = new Map<number, (url: string) => void>();
  servePrimaryRequests(
    {
      ...limits.handlers(),
      ...clusterMetricsHandlers(),
      [READY_NOTICE]: ({ url }: { url: string }, worker: Worker) => readyWaiters.get(worker.id)?.(url),
    },
    (error, kind) => logger.error({ err: error, kind }, 'answering a platform process failed'),
  );

  let stopping = false;
  /** Every process answered once: from now on a dead one is started again (during start-up it fails the start). */
  let running = false;
  const byIndex = new Map<number, Worker>();

  /** Forks the process with this index; resolves with its URL once it answers, rejects if it dies first. */
  const fork = (index: number): Promise<string> => {
    if (stopping) return Promise.reject(new Error('the platform is stopping'));
    const worker = cluster.fork({ DATABASE_URL: databaseUrl, [PROCESS_INDEX_ENV]: String(index) });
    byIndex.set(index, worker);
    const startedAt = Date.now();
    const ready = new Promise<string>((resolve, reject) => {
      readyWaiters.set(worker.id, (url) => {
        answering.add(worker);
        resolve(url);
      });
      worker.once('exit', (code, signal) => reject(new Error(`platform process ${index} exited during start-up (${signal ?? `code ${code}`})`)));
    });
    worker.once('exit', (code, signal) => {
      readyWaiters.delete(worker.id);
      limits.releaseAllOf(worker.id);
      if (byIndex.get(index) === worker) byIndex.delete(index);
      if (stopping || !running) return;
      const stableRun = Date.now() - startedAt >= STABLE_AFTER_MS;
      restartDelay.set(index, stableRun ? RESTART_DELAY_MS : Math.min((restartDelay.get(index) ?? RESTART_DELAY_MS / 2) * 2, MAX_RESTART_DELAY_MS));
      const delay = restartDelay.get(index)!;
      logger.error({ process: index, code, signal, restartInMs: delay }, 'a platform process died; starting it again');
      setTimeout(() => {
        if (stopping) return;
        fork(index).then(
          () => logger.info({ process: index }, 'platform process started again'),
          (error: unknown) => {
            // Stopped while it started again: that is the stop, not a failure.
            if (!stopping) logger.error({ err: error, process: index }, 'a restarted platform process failed');
          },
        );
      }, delay).unref();
    });
    return ready;
  };
  const restartDelay = new Map<number, number>();
  /** Processes that said they answer: they handle SIGTERM by draining; one still starting dies of it. */
  const answering = new WeakSet<Worker>();

  const stopProcesses = async (): Promise<boolean> => {
    stopping = true;
    const workers = [...byIndex.values()];
    // A process still starting (one started again after a death, say) has served nothing and installs its
    // SIGTERM handler only once it answers: killed by this SIGTERM, it stopped as asked.
    const stoppedAsAsked = (worker: Worker, code: number | null, signal: string | null) =>
      code === 0 || (signal === 'SIGTERM' && !answering.has(worker));
    const exits = workers.map(
      (worker) => new Promise<boolean>((resolve) => {
        if (worker.isDead()) return resolve(stoppedAsAsked(worker, worker.process.exitCode, worker.process.signalCode));
        worker.once('exit', (code, signal) => resolve(stoppedAsAsked(worker, code, signal)));
      }),
    );
    // Each process drains its own requests on SIGTERM (server/main.ts), as when it runs alone.
    for (const worker of workers) worker.process.kill('SIGTERM');
    const killer = setTimeout(() => {
      for (const worker of workers) {
        if (!worker.isDead()) {
          logger.error({ pid: worker.process.pid }, 'a platform process did not stop in time: killing it');
          worker.process.kill('SIGKILL');
        }
      }
    }, config.shutdownDelayMs + config.shutdownTimeoutMs + STOP_GRACE_MS);
    const clean = (await Promise.all(exits)).every(Boolean);
    clearTimeout(killer);
    return clean;
  };

  const stopDatabase = async () => {
    if (embedded) await embedded.stop();
  };

  const start = async (): Promise<string> => {
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'postgres'),
        settings: config.postgresSettings,
        onLog: (line) => logger.debug({ postgres: line }, 'postgres'),
      });
      databaseUrl = embedded.url;
      logger.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
    }
    // Once here rather than in every process: a self-signed certificate is generated before any process reads it.
    await loadTlsCredentials(config);
    const urls = await Promise.all(Array.from({ length: config.processes }, (_, index) => fork(index)));
    running = true;
    return urls[0]!;
  };
  const ready = start();

  let closing: Promise<boolean> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      await ready.catch(() => undefined); // PostgreSQL may be starting: stop it once it is up
      const clean = await stopProcesses();
      await stopDatabase();
      return clean;
    })());
  return {
    // A failed start stops what did start (the caller sees the start's error).
    ready: ready.catch(async (error: unknown) => {
      await close();
      throw error;
    }),
    processes: config.processes,
    close,
  };
}
