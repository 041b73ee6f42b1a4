import { Counter, Gauge, type Metric } from 'prom-client';
import { deadLetterRecords } from '../db/poisoned-records.js';

/**
 * What the background workers count, declared once for the whole process: a worker runs in whichever service hosts
 * its subgraph (the one-process platform, its first process in a process-per-core platform, or the subgraph's own
 * service), and that service's `/metrics` exposes these (platform/http/metrics.ts registers every one of them).
 * Workers only add to them; Grafana's dashboard (deploy/grafana/trellis.json) reads them by these names.
 */

/** Webhook deliveries' attempts by what became of the delivery (automations' delivery worker). */
export const webhookDeliveryAttempts = new Counter({
  name: 'trellis_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by outcome: succeeded, retrying (a retry is scheduled) or failed (given up)',
  labelNames: ['outcome'] as const,
  registers: [],
});

/** The automation engine: how far behind the platform events it turns into deliveries. */
export const automationEngineLag = new Gauge({
  name: 'trellis_automation_engine_lag_seconds',
  help: 'Age of the newest platform event the automation engine handled, when it handled it (0 before the first)',
  registers: [],
});
export const automationEngineEvents = new Counter({
  name: 'trellis_automation_engine_events_total',
  help: 'Platform events the automation engine handled',
  registers: [],
});

/** The training queue (graphile-worker's jobs of the training task), sampled by the training queue worker. */
export const trainingQueueJobs = new Gauge({
  name: 'trellis_training_queue_jobs',
  help: 'Training queue entries: pending (waiting for a worker) or locked (being trained)',
  labelNames: ['state'] as const,
  registers: [],
});

/** Platform event consumers (platform/events/event-consumer.ts): how far behind the events they apply. */
export const eventConsumerLag = new Gauge({
  name: 'trellis_event_consumer_lag_seconds',
  help: 'Age of the newest platform event a consumer applied, when it applied it (0 before the first)',
  labelNames: ['consumer'] as const,
  registers: [],
});
export const eventConsumerEvents = new Counter({
  name: 'trellis_event_consumer_events_total',
  help: 'Platform events a consumer applied or passed over',
  labelNames: ['consumer'] as const,
  registers: [],
});

// Series that exist from the start, so a dashboard shows 0 rather than "no data" before anything happened.
for (const outcome of ['succeeded', 'retrying', 'failed']) webhookDeliveryAttempts.inc({ outcome }, 0);
for (const state of ['pending', 'locked']) trainingQueueJobs.set({ state }, 0);

/** Every metric of the process's background work, dead-lettered records included. */
export const WORKER_METRICS: readonly Metric[] = [
  deadLetterRecords,
  webhookDeliveryAttempts,
  automationEngineLag,
  automationEngineEvents,
  trainingQueueJobs,
  eventConsumerLag,
  eventConsumerEvents,
];

/** Seconds since `createdAt` (never negative: clocks of PostgreSQL and this process may differ slightly). */
export function ageSeconds(createdAt: Date, now = Date.now()): number {
  return Math.max(0, (now - createdAt.getTime()) / 1000);
}
