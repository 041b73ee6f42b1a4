import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PrimaryChannel, PrimaryHandler } from '../cluster/ipc.js';
import { WORKER_METRICS } from './worker-metrics.js';

const CLUSTER_METRICS = 'metrics.cluster';

export interface MetricsOptions {
  /**
   * A worker of a process-per-core platform: `/metrics` answers for all its processes (the primary gathers every
   * worker's registry, each series keeping its `process` label), since a scrape reaches whichever process the
   * connection landed on.
   */
  primary?: PrimaryChannel;
  /**
   * The `service` label of every series: `platform` (every subgraph and the gateway in one process, the default),
   * `gateway` (the distributed topology's gateway) or a subgraph service's name.
   */
  service?: string;
  /**
   * The `process` label of every series: this process's index in a process-per-core platform (0 when it runs
   * alone). Each process's series stay apart in the cluster's `/metrics`, so one hot or leaking process shows.
   */
  processIndex?: number;
}

/**
 * Prometheus metrics of a service: Node defaults, request latency by route and status, and the background workers'
 * counters (dead-lettered records, deliveries, lags, queue depth), every series labelled with `service` and `process`.
 */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions = {}): Registry {
  const registry = new Registry();
  // Default labels are added to each series as it is read, also when the cluster's primary gathers them: the
  // aggregation then sums only series with equal labels, i.e. none across processes.
  registry.setDefaultLabels({ service: options.service ?? 'platform', process: String(options.processIndex ?? 0) });
  collectDefaultMetrics({ register: registry, prefix: 'trellis_' });
  // prom-client leaves each process's start time out of the cluster's answer (it could not add them up); labelled
  // by process they need no adding up, and they show which process was restarted and when.
  const startTime = registry.getSingleMetric('trellis_process_start_time_seconds') as { aggregator?: string } | undefined;
  if (startTime) startTime.aggregator = 'first';
  // Process-wide: the background workers of every subgraph in this process count into them.
  for (const metric of WORKER_METRICS) registry.registerMetric(metric);
  const duration = new Histogram({
    name: 'trellis_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Callback-style: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const { primary } = options;
  if (primary) {
    // prom-client answers the primary's requests for this registry (its listener comes with an AggregatorRegistry).
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry();
  }
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return primary ? primary.request<string>(CLUSTER_METRICS, null) : registry.metrics();
  });
  return registry;
}

/** The primary's side of cluster-wide `/metrics`. */
export function clusterMetricsHandlers(): Record<string, PrimaryHandler> {
  const aggregator = new AggregatorRegistry();
  return { [CLUSTER_METRICS]: () => aggregator.clusterMetrics() };
}
