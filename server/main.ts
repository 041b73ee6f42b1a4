import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { startPlatform } from './platform.js';

/**
 * `npm start`: the whole platform in one process — embedded PostgreSQL (unless DATABASE_URL), every subgraph,
 * the gateway, the REST adapter and background workers. With TRELLIS_SUBGRAPH_URLS set, the named subgraphs
 * are reached over HTTP instead (distributed topology; see docker-compose.yml).
 */
const config = loadConfig();
const logger = createLogger({ level: config.logLevel });

const platform = await startPlatform({ config, logger }).catch((error) => {
  logger.fatal({ err: error }, 'Trellis failed to start');
  process.exit(1);
});

const { url } = platform;
process.stdout.write(
  [
    '',
    `Trellis is running at ${url}`,
    `  Dashboard              ${url}/ui/`,
    `  GraphQL (gateway)      ${url}/graphql  (open it in a browser: the GraphQL explorer)`,
    `  Tracing (Family A)     ${url}/traces`,
    `  Inference (Family B)   ${url}/inference/v1`,
    `  Training (Family C)    ${url}/training`,
    `  REST docs / OpenAPI    ${url}/docs  ${url}/openapi.json`,
    `  Health / metrics       ${url}/healthz  ${url}/metrics`,
    '',
  ].join('\n') + '\n',
);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining requests and workers');
    platform.close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
