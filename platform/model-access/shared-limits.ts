import type { Worker } from 'node:cluster';
import { ClusterFailure, type PrimaryChannel, type PrimaryHandler } from '../cluster/ipc.js';
import { NO_LEASE, RateLimitedError, type Lease, type ModelLimiter, type RequestLimiter } from './request-limiter.js';

/**
 * Model limits shared by the processes of one `npm start`: the primary holds the one RequestLimiter and every
 * worker asks it (one IPC round trip per admitted request, only when a limit is configured). A limit of 10 in
 * flight is then 10 for the platform, whichever process each request reached.
 */
const ACQUIRE = 'model-limits.acquire';
const RELEASE = 'model-limits.release';

interface AcquirePayload {
  keyId: string;
  project: string;
}

/** The worker's limiter: asks the primary. With no limit configured it admits everything without asking. */
export class SharedModelLimiter implements ModelLimiter {
  constructor(
    private readonly primary: PrimaryChannel,
    private readonly enabled: boolean,
  ) {}

  acquire(keyId: string, project: string): Lease | Promise<Lease> {
    if (!this.enabled) return NO_LEASE;
    return this.primary.request<number>(ACQUIRE, { keyId, project } satisfies AcquirePayload).then(
      (leaseId) => {
        let released = false;
        return {
          release: () => {
            if (released) return;
            released = true;
            this.primary.notify(RELEASE, leaseId);
          },
        };
      },
      (error: unknown) => {
        if (error instanceof ClusterFailure && error.kind === 'rate-limited') {
          throw new RateLimitedError(error.message, (error.details as { retryAfterSeconds: number }).retryAfterSeconds);
        }
        throw error;
      },
    );
  }
}

/**
 * The primary's side: admits workers' requests under its limiter and keeps their leases by worker, so the leases
 * of a worker that died are released with it.
 */
export class ModelLimitsHost {
  private nextLeaseId = 0;
  private readonly leases = new Map<number, { lease: Lease; workerId: number }>();

  constructor(private readonly limiter: RequestLimiter) {}

  handlers(): Record<string, PrimaryHandler> {
    return {
      [ACQUIRE]: ({ keyId, project }: AcquirePayload, worker: Worker) => {
        let lease: Lease;
        try {
          lease = this.limiter.acquire(keyId, project);
        } catch (error) {
          if (error instanceof RateLimitedError) {
            throw new ClusterFailure('rate-limited', error.message, { retryAfterSeconds: error.retryAfterSeconds ?? 1 });
          }
          throw error;
        }
        const leaseId = this.nextLeaseId++;
        this.leases.set(leaseId, { lease, workerId: worker.id });
        return leaseId;
      },
      [RELEASE]: (leaseId: number) => {
        this.leases.get(leaseId)?.lease.release();
        this.leases.delete(leaseId);
      },
    };
  }

  /** Releases everything a worker held (it exited; its requests ended with it). */
  releaseAllOf(workerId: number): void {
    for (const [leaseId, held] of this.leases) {
      if (held.workerId !== workerId) continue;
      held.lease.release();
      this.leases.delete(leaseId);
    }
  }

  get heldLeases(): number {
    return this.leases.size;
  }
}
