import { afterEach, describe, expect, it } from 'vitest';
import { warnIfConnectionsCanRunOut } from '../../platform/db/connection-budget.js';
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
  it("warns when the pools may open more than max_connections leaves, counting every process that shares the budget", async () => {
    const db = connectDatabase(await createTestDatabase(), { max: 5 });
    opened.push(db);
    const { logger, warnings } = recordingLogger();
    const budget = await warnIfConnectionsCanRunOut(db.root, logger, { processes: 1 });
    expect(budget).toBeDefined();
    // Room for every pool of this test process: no warning.
    const headroomFits = budget!.inUse + budget!.mayStillOpen <= budget!.maxConnections - budget!.reserved;
    expect(headroomFits).toBe(true);
    expect(warnings).toEqual([]);

    // A pool as large as the server allows, in four processes: it cannot fit.
    const huge = connectDatabase(await createTestDatabase(), { max: budget!.maxConnections });
    opened.push(huge);
    const over = await warnIfConnectionsCanRunOut(huge.root, logger, { processes: 4 });
    expect(over!.mayStillOpen).toBeGreaterThanOrEqual(4 * budget!.maxConnections);
    expect(warnings.at(-1)).toMatch(/^PostgreSQL connections can run out: \d+ are open and the platform's pools may open \d+ more, against max_connections \d+ \(\d+ reserved for superusers\)/);
  });
});
