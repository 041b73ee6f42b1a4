import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { DatabaseConnection } from '../db/connection.js';
import { isDraining } from './graceful-close.js';

/**
 * `/readyz`: whether this service can serve now — its database answers and what else it needs is there (the
 * gateway: its subgraph services, reachable and accepting its internal secret). A load balancer or orchestrator
 * sends traffic only to a ready service and waits for dependencies with it (docker-compose's `service_healthy`,
 * Kubernetes' readiness probe). `/healthz` stays liveness: the process is up, whatever its dependencies do.
 */
export interface ReadinessCheck {
  /** Named in `/readyz`'s answer: `database`, `subgraph <name>`. */
  name: string;
  /** Resolves when ready; rejects with the reason (a ReadinessFailure for a reason with a code) otherwise. */
  check(): Promise<void>;
}

/** A failed check with a code an operator (or a test) can match, beside the message. */
export class ReadinessFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** One check's part of the answer. */
export interface CheckResult {
  check: string;
  ok: boolean;
  reason?: string;
  code?: string;
}

/** A check that has not answered by then fails (a database that accepts connections but never answers). */
const CHECK_TIMEOUT_MS = 3_000;

/**
 * `GET /readyz`: 200 `{status: 'ready', checks}` or 503 `{status: 'unavailable', failing: [names], checks}`; from the
 * moment a graceful shutdown begins, 503 with the check `shutdown` failing (code SHUTTING_DOWN).
 */
export function registerReadiness(app: FastifyInstance, checks: readonly ReadinessCheck[]): void {
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    // Shutting down (graceful-close.ts): not ready whatever the checks say, so balancers stop choosing this process
    // while it still serves what reaches it.
    const shutdown: CheckResult[] = isDraining(app)
      ? [{ check: 'shutdown', ok: false, reason: 'the process is shutting down', code: 'SHUTTING_DOWN' }]
      : [];
    const results = [...shutdown, ...(await Promise.all(checks.map(runCheck)))];
    const failing = results.filter((result) => !result.ok).map((result) => result.check);
    reply.header('cache-control', 'no-store');
    if (failing.length) return reply.code(503).send({ status: 'unavailable', failing, checks: results });
    return { status: 'ready', checks: results };
  });
}

async function runCheck(check: ReadinessCheck): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReadinessFailure(`no answer within ${CHECK_TIMEOUT_MS} ms`, 'TIMEOUT')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check.check(), timeout]);
    return { check: check.name, ok: true };
  } catch (error) {
    const code = error instanceof ReadinessFailure ? error.code : undefined;
    return { check: check.name, ok: false, reason: (error as Error).message, ...(code ? { code } : {}) };
  } finally {
    clearTimeout(timer);
  }
}

/** The service's database answers a query. */
export function databaseCheck(db: DatabaseConnection): ReadinessCheck {
  return {
    name: 'database',
    check: async () => {
      try {
        await sql`select 1`.execute(db.root);
      } catch (error) {
        throw new ReadinessFailure(`the database does not answer: ${(error as Error).message}`, 'DATABASE_UNAVAILABLE');
      }
    },
  };
}
