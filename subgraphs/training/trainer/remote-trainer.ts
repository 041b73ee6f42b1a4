import type { Kysely } from 'kysely';
import type { TrainingDatabase } from '../db/database.js';
import type { TrainingConfig } from '../training-config.js';
import { TrainingInputError, type AdapterFiles, type StepMetrics, type TrainRequest, type TrainerBackend } from './trainer-backend.js';

const POLL_MS = 100;

/**
 * Trains through the remote worker protocol (docs/training.md): the job's work becomes a PENDING assignment that an
 * HTTP worker leases, heartbeats, reports steps on (they become gradient_step events directly) and completes with
 * the adapter files; this backend waits for that result and hands it to the job runner, which stores the
 * checkpoint exactly as for the embedded trainer. A worker that stops beating loses its lease: the assignment is
 * offered again while leases are left (`maxAttempts`), and the job fails after that.
 */
export class RemoteTrainer implements TrainerBackend {
  readonly name = 'remote';

  constructor(
    private readonly db: Kysely<TrainingDatabase>,
    private readonly config: TrainingConfig,
  ) {}

  async train(request: TrainRequest, _onStep: (metrics: StepMetrics) => void): Promise<{ files: AdapterFiles; step: number }> {
    const work = {
      kind: request.work.kind,
      base_model: request.baseModel,
      config: request.work.config,
      ...(request.work.kind === 'RL' ? { trajectory_groups: request.work.trajectoryGroups } : { examples: request.work.examples }),
      adapter: request.adapter
        ? {
            id: request.adapter.id,
            files: Object.fromEntries(Object.entries(request.adapter.files).map(([path, bytes]) => [path, bytes.toString('base64')])),
          }
        : null,
    };
    await this.db
      .insertInto('remote_assignments')
      .values({ job_id: request.jobId, work: JSON.stringify(work) })
      .onConflict((oc) =>
        oc.column('job_id').doUpdateSet({ work: JSON.stringify(work), status: 'PENDING', worker_id: null, heartbeat_at: null, leases: 0, error_message: null }),
      )
      .execute();
    try {
      for (;;) {
        if (request.signal.aborted) throw request.signal.reason ?? new Error('aborted');
        const row = await this.db.selectFrom('remote_assignments').selectAll().where('job_id', '=', request.jobId).executeTakeFirstOrThrow();
        if (row.status === 'DONE') {
          return {
            step: row.result_step ?? 0,
            files: { 'adapter_config.json': Buffer.from(row.result_config ?? '', 'utf8'), 'adapter_model.safetensors': row.result_weights ?? Buffer.alloc(0) },
          };
        }
        if (row.status === 'FAILED') throw new TrainingInputError(row.error_message ?? 'The remote trainer failed the job');
        if (row.status === 'LEASED' && row.heartbeat_at && Date.now() - row.heartbeat_at.getTime() > this.config.staleAfterMs) {
          if (row.leases >= this.config.maxAttempts) {
            throw new TrainingInputError(
              `The remote training worker ${row.worker_id} stopped responding (no heartbeat for ${Math.round(this.config.staleAfterMs / 1000)} s) on lease ${row.leases} of ${this.config.maxAttempts}`,
            );
          }
          await this.db
            .updateTable('remote_assignments')
            .set({ status: 'PENDING', worker_id: null, heartbeat_at: null })
            .where('job_id', '=', request.jobId)
            .where('status', '=', 'LEASED')
            .execute();
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } catch (error) {
      // Cancelled or failed here: a worker still holding the lease learns it from its next heartbeat.
      await this.db
        .updateTable('remote_assignments')
        .set({ status: 'CANCELLED' })
        .where('job_id', '=', request.jobId)
        .where('status', 'in', ['PENDING', 'LEASED'])
        .execute();
      throw error;
    }
  }
}
