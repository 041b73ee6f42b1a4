import cluster from 'node:cluster';
import { loadConfig } from '../platform/config.js';
import { createLogger, type Logger } from '../platform/logger.js';
import { startBanner } from './banner.js';
import { logStartupFailure } from './startup-failure.js';
import { startClusterPrimary } from './cluster/primary.js';
import { clusterWorker } from './cluster/worker.js';
import { startPlatform } from './platform.js';

/**
 * `npm start`: the whole platform — embedded PostgreSQL (unless DATABASE_URL), every subgraph, the gateway, the
 * REST adapter and background workers — in one process, or in one process per core (TRELLIS_PROCESSES, default
 * `auto`): a primary owning PostgreSQL forks identical platform processes sharing the port (server/cluster).
 * With TRELLIS_SUBGRAPH_URLS set, the named subgraphs are reached over HTTP instead (distributed topology; see
 * docker-compose.yml).
 */
const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    // The configuration says how to log; without one, log at the default level.
    logStartupFailure(createLogger({ level: 'info' }), error);
    process.exit(1);
  }
})();
const baseLogger = createLogger({ level: config.logLevel });

/**
 * Runs `stop` on the first SIGTERM or SIGINT (or `also`), then exits 0 when it reports a clean stop. Returns whether
 * a stop was asked for.
 */
function stopOnSignal(logger: Logger, stop: () => Promise<boolean>, also?: (trigger: () => void) => void): () => boolean {
  let stopping = false;
  const trigger = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down: draining requests and workers');
    stop().then(
      (clean) => process.exit(clean ? 0 : 1),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => trigger(signal));
  also?.(() => trigger('the primary process is gone'));
  return () => stopping;
}

if (cluster.isPrimary && config.processes > 1) {
  // Stoppable from the first moment: a signal during start-up stops the processes already forked and PostgreSQL.
  const primary = startClusterPrimary(config, baseLogger);
  const stopAsked = stopOnSignal(baseLogger, () => primary.close());
  const url = await primary.ready.catch((error: unknown) => {
    // Stopped during start-up: the signal's stop exits when it is done.
    if (stopAsked()) return new Promise<never>(() => undefined);
    logStartupFailure(baseLogger, error);
    process.exit(1);
  });
  process.stdout.write(startBanner(url, primary.processes));
} else {
  const worker = clusterWorker(config);
  const logger = worker ? baseLogger.child({ process: worker.index }) : baseLogger;
  const platform = await startPlatform({ config, logger, ...worker?.platformOptions }).catch((error: unknown) => {
    logStartupFailure(logger, error);
    process.exit(1);
  });
  if (worker) worker.ready(platform.url);
  else process.stdout.write(startBanner(platform.url));
  stopOnSignal(
    logger,
    async () => {
      await platform.close();
      return true;
    },
    worker?.onPrimaryGone,
  );
}
