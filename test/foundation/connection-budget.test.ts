import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionsCanRunOut, warnIfConnectionsCanRunOut } from '../../platform/db/connection-budget.js';
import { connectDatabase, type DatabaseConnection } from '../../platform/db/connection.js';
import type { Logger } from '../../platform/logger.js';
import { createTestDatabase } from '../support/database.js';

/** Start-up's warning that a burst could exhaust PostgreSQL's max_connections (docs/operations.md, "Connection budget"). */
const opened: DatabaseConnection[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => warnings.push(message), debug: () => undefined } as unknown as Logger;
  return { logger, warnings };
}

describe('the connection budget check', () => {
  it('counts what is open now and what the pools may still open against max_connections less the reserve', () => {
    const budget = { maxConnections: 100, reserved: 3, inUse: 40, mayStillOpen: 57 };
    expect(connectionsCanRunOut(budget)).toBe(false); // exactly fits: 40 + 57 = 97
    expect(connectionsCanRunOut({ ...budget, mayStillOpen: 58 })).toBe(true);
    expect(connectionsCanRunOut({ ...budget, reserved: 4 })).toBe(true);
  });

  it('reads the server, counts every process that shares the budget, and warns only when it cannot fit', async () => {
    const db = connectDatabase(await createTestDatabase(), { max: 5 });
    opened.push(db);
    const { logger, warnings } = recordingLogger();
    const budget = await warnIfConnectionsCanRunOut(db.root, logger, { processes: 1 });
    expect(budget).toBeDefined();
    const { rows } = await sql<{ max: number }>`select current_setting('max_connections')::int as max`.execute(db.root);
    expect(budget!.maxConnections).toBe(rows[0]!.max);
    expect(budget!.inUse).toBeGreaterThanOrEqual(1); // this very query's connection
    // Other test files share the server and this worker's pools, so whether it fits depends on them: the warning
    // must agree with the figures either way.
    expect(warnings).toHaveLength(connectionsCanRunOut(budget!) ? 1 : 0);

    // A pool as large as the server allows, in four processes: it cannot fit.
    const huge = connectDatabase(await createTestDatabase(), { max: budget!.maxConnections });
    opened.push(huge);
    const over = await warnIfConnectionsCanRunOut(huge.root, logger, { processes: 4 });
    expect(over!.mayStillOpen).toBeGreaterThanOrEqual(4 * budget!.maxConnections);
    expect(warnings.at(-1)).toMatch(/^PostgreSQL connections can run out: \d+ are open and the platform's pools may open \d+ more, against max_connections \d+ \(\d+ reserved for superusers\)/);
  });
});
