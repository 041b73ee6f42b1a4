import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TrainingServices } from '../services.js';
import { queueStats } from '../job/job-queue.js';
import type { JobVisibility } from '../store.js';
import { TrainingHealth, TrainingSystemCheck, toTrainingSystemCheck } from './health.type.js';
import { PublicCheckError, runSystemCheck } from './system-check.js';

/** Health endpoints need no API key (load balancers and the ART client call them anonymously). */
@Resolver()
export class TrainingHealthResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => TrainingHealth, { description: 'Liveness of the training API (needs no API key). Also at GET /training/v1/health' })
  trainingHealth(): TrainingHealth {
    return Object.assign(new TrainingHealth(), { status: 'ok' });
  }

  @Query(() => TrainingSystemCheck, {
    description:
      "Per-check results (api, database, job store, job queue, workers): success, duration (s), errors; details (job counts of the caller's teams) only with an API key. Also at GET /training/v1/system-check",
  })
  async trainingSystemCheck(@Ctx() context: GraphQLContext): Promise<TrainingSystemCheck> {
    const { store, config } = this.services;
    // Anonymous callers (load balancers, the ART client's probe) learn whether each check passed, never counts;
    // a caller with a key gets counts of their own teams' jobs (a platform admin: all of them).
    const viewer = context.principal;
    const visible: JobVisibility = viewer?.isAdmin ? 'all' : Object.keys(viewer?.teams ?? {});
    const report = await runSystemCheck(
      store,
      {
        job_store: async () => ({ jobs_by_status: await store.countJobsByStatus(visible) }),
        job_queue: async () => ({ ...(await queueStats(store.db, visible)) }),
        // Fails when a RUNNING job has gone without a heartbeat for twice the stale limit: then no process is
        // sweeping (every training worker is down), since a live sweeper retries or fails such a job much sooner.
        // The message names no count: anonymous callers see it.
        workers: async () => {
          const orphaned = await store.countStaleRunningJobs(new Date(Date.now() - 2 * config.staleAfterMs));
          if (orphaned > 0) throw new PublicCheckError(`running jobs have had no heartbeat for over ${Math.round((2 * config.staleAfterMs) / 1000)} s: no training worker is sweeping`);
          return { backend: config.backend, concurrency_per_process: config.concurrency };
        },
      },
      { details: viewer !== null },
    );
    return toTrainingSystemCheck(report);
  }
}
