import { sql, type Kysely, type Transaction } from 'kysely';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../platform/errors.js';
import type { TrainingDatabase } from '../db/database.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { TrainingStore } from '../store.js';
import { WorkerResultInput, WorkerStepBody } from '../training.schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The server side of the remote trainer protocol. Every call after the lease names the worker, and only the
 * worker holding the lease may act on an assignment (409 otherwise, e.g. after its lease was given to another).
 */
export class RemoteWorkerService {
  constructor(
    private readonly db: Kysely<TrainingDatabase>,
    private readonly store: TrainingStore,
  ) {}

  /** Leases the oldest pending assignment (SKIP LOCKED: concurrent workers get different ones), or null. */
  async lease(workerId: string): Promise<Record<string, unknown> | null> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('remote_assignments')
        .select(['job_id', 'work'])
        .where('status', '=', 'PENDING')
        .orderBy('created_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!row) return null;
      await trx
        .updateTable('remote_assignments')
        .set({ status: 'LEASED', worker_id: workerId, heartbeat_at: new Date(), leases: sql`leases + 1` })
        .where('job_id', '=', row.job_id)
        .execute();
      return { job_id: row.job_id, ...(row.work as Record<string, unknown>) };
    });
  }

  /** Keeps the lease alive; the answer says whether to go on (`LEASED`) or stop (`CANCELLED`, `LOST`, …). */
  async heartbeat(jobId: string, workerId: string): Promise<string> {
    const row = await this.db
      .updateTable('remote_assignments')
      .set({ heartbeat_at: new Date() })
      .where('job_id', '=', this.uuid(jobId))
      .where('worker_id', '=', workerId)
      .where('status', '=', 'LEASED')
      .returning('status')
      .executeTakeFirst();
    if (row) return row.status;
    const current = await this.db.selectFrom('remote_assignments').select(['status', 'worker_id']).where('job_id', '=', jobId).executeTakeFirst();
    if (!current) throw new NotFoundError(`No remote assignment for job ${jobId}`);
    return current.worker_id === workerId ? current.status : 'LOST';
  }

  /** One optimizer step's metrics (WorkerStepBody), recorded as the job's gradient_step event. */
  async step(jobId: string, body: unknown): Promise<void> {
    const { worker_id: workerId, metrics } = validateOrThrow(WorkerStepBody, body);
    if (Object.values(metrics).some((value) => typeof value !== 'number' || !Number.isFinite(value))) {
      throw new ValidationFailedError([{ loc: ['body', 'metrics'], msg: 'Every metric must be a finite number', type: 'float_type' }]);
    }
    await this.db.transaction().execute(async (trx) => {
      await this.holdLease(trx, jobId, workerId);
      await this.store.insertJobEvent(trx, jobId, 'gradient_step', metrics);
    });
  }

  /** The trained adapter (WorkerResultInput: the files as a list of {name, content_base64}). */
  async complete(jobId: string, body: unknown): Promise<void> {
    const result = validateOrThrow(WorkerResultInput, body);
    const workerId = result.worker_id;
    const file = (name: string) => result.files.find((candidate) => candidate.name === name)?.content_base64;
    const config = file('adapter_config.json');
    const weights = file('adapter_model.safetensors');
    if (config === undefined || weights === undefined) {
      throw new ValidationFailedError([
        { loc: ['body', 'files'], msg: 'adapter_config.json and adapter_model.safetensors (base64) are required', type: 'missing' },
      ]);
    }
    await this.db.transaction().execute(async (trx) => {
      await this.holdLease(trx, jobId, workerId);
      await trx
        .updateTable('remote_assignments')
        .set({
          status: 'DONE',
          result_step: result.step,
          result_config: Buffer.from(config, 'base64').toString('utf8'),
          result_weights: Buffer.from(weights, 'base64'),
        })
        .where('job_id', '=', jobId)
        .execute();
    });
  }

  async fail(jobId: string, workerId: string, errorMessage: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.holdLease(trx, jobId, workerId);
      await trx.updateTable('remote_assignments').set({ status: 'FAILED', error_message: errorMessage }).where('job_id', '=', jobId).execute();
    });
  }

  private uuid(jobId: string): string {
    if (!UUID.test(jobId)) throw new NotFoundError(`No remote assignment for job ${jobId}`);
    return jobId;
  }

  private async holdLease(trx: Transaction<TrainingDatabase>, jobId: string, workerId: string): Promise<void> {
    const row = await trx
      .selectFrom('remote_assignments')
      .select(['status', 'worker_id'])
      .where('job_id', '=', this.uuid(jobId))
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new NotFoundError(`No remote assignment for job ${jobId}`);
    if (row.status !== 'LEASED' || row.worker_id !== workerId) {
      throw new ConflictError(`Worker ${workerId} does not hold the lease of job ${jobId} (assignment is ${row.status})`);
    }
  }
}
