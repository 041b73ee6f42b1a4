import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { deadLetterRecords } from '../db/poisoned-records.js';

/** Prometheus metrics of one process: Node defaults, request latency by route and status, dead-lettered records. */
export function registerMetrics(app: FastifyInstance): Registry {
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
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}
