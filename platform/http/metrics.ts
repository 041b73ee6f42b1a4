import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PrimaryChannel, PrimaryHandler } from '../cluster/ipc.js';
import { deadLetterRecords } from '../db/poisoned-records.js';

const CLUSTER_METRICS = 'metrics.cluster';

export interface MetricsOptions {
  /**
   * A worker of a process-per-core platform: `/metrics` answers for all its processes (the primary gathers every
   * worker's registry and sums them), since a scrape reaches whichever process the connection landed on.
   */
  primary?: PrimaryChannel;
}

/** Prometheus metrics of the platform: Node defaults, request latency by route and status, dead-lettered records. */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'trellis_' });
  // Process-wide: the background writers of every subgraph in this process count into it.
  registry.registerMetric(deadLetterRecords);
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
