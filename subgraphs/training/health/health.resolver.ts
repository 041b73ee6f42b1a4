import { Query, Resolver } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TrainingServices } from '../services.js';
import { queueStats } from '../job/job-queue.js';
import { runSystemCheck, type SystemCheckReport } from './system-check.js';

/** Health endpoints need no API key (load balancers and the ART client call them anonymously). */
@Resolver()
export class TrainingHealthResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => JSONObjectScalar, { description: 'Liveness of the training API: {status: "ok"}' })
  trainingHealth(): Record<string, unknown> {
    return { status: 'ok' };
  }

  @Query(() => JSONObjectScalar, { description: 'Per-check results (api, database, job store, job queue, workers): success, duration (s), errors' })
  trainingSystemCheck(): Promise<SystemCheckReport> {
    const { store, config } = this.services;
    return runSystemCheck(store, {
      job_queue: async () => ({ ...(await queueStats(store.db)) }),
      // Fails when a RUNNING job has gone without a heartbeat for twice the stale limit: then no process is
      // sweeping (every training worker is down), since a live sweeper retries or fails such a job much sooner.
      workers: async () => {
        const orphaned = await store.countStaleRunningJobs(new Date(Date.now() - 2 * config.staleAfterMs));
        if (orphaned > 0) throw new Error(`${orphaned} running job(s) without a heartbeat for over ${Math.round((2 * config.staleAfterMs) / 1000)} s: no training worker is sweeping`);
        return { backend: config.backend, concurrency_per_process: config.concurrency };
      },
    });
  }
}
