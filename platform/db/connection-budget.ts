import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Logger } from '../logger.js';

/** The pools this process opened (connection.ts and any subgraph's own), to count what it may still open. */
const pools = new Set<pg.Pool>();

export function trackPool(pool: pg.Pool): void {
  pools.add(pool);
}

/** Connections this process's pools may still open: each pool's maximum less what it holds now. */
export function poolHeadroom(): number {
  let headroom = 0;
  for (const pool of pools) {
    if (pool.ending || pool.ended) continue;
    headroom += Math.max(0, (pool.options.max ?? 10) - pool.totalCount);
  }
  return headroom;
}

export interface ConnectionBudget {
  maxConnections: number;
  reserved: number;
  /** Client connections to the server now, every application's (this process's dedicated LISTEN ones included). */
  inUse: number;
  /** What the platform's processes on this budget may still open: `processes` × this process's pool headroom. */
  mayStillOpen: number;
}

/** Whether what is open now plus what the pools may still open can exceed what PostgreSQL lets clients open. */
export function connectionsCanRunOut(budget: ConnectionBudget): boolean {
  return budget.inUse + budget.mayStillOpen > budget.maxConnections - budget.reserved;
}

/**
 * After start-up: warns when the connections open now plus what the platform's pools may still open can exceed
 * PostgreSQL's max_connections (less the superuser reserve) — a burst would then be refused with "too many
 * clients". `processes`: how many processes like this one share the budget (a process per core counts each of
 * them); processes elsewhere are counted by what they hold now. docs/operations.md has the per-topology formula.
 */
export async function warnIfConnectionsCanRunOut(db: Kysely<any>, logger: Logger, options: { processes: number }): Promise<ConnectionBudget | undefined> {
  try {
    const { rows } = await sql<{ max: number; reserved: number; used: number }>`
      select current_setting('max_connections')::int as max,
             current_setting('superuser_reserved_connections')::int as reserved,
             (select count(*) from pg_stat_activity where backend_type = 'client backend')::int as used`.execute(db);
    const row = rows[0]!;
    const budget = { maxConnections: row.max, reserved: row.reserved, inUse: row.used, mayStillOpen: options.processes * poolHeadroom() };
    if (connectionsCanRunOut(budget)) {
      logger.warn(
        budget,
        `PostgreSQL connections can run out: ${budget.inUse} are open and the platform's pools may open ${budget.mayStillOpen} more, ` +
          `against max_connections ${budget.maxConnections} (${budget.reserved} reserved for superusers). Raise max_connections or lower ` +
          'TRELLIS_DB_POOL_SIZE (docs/operations.md, "Connection budget")',
      );
    }
    return budget;
  } catch (error) {
    logger.debug({ err: error }, 'connection budget not checked');
    return undefined;
  }
}
