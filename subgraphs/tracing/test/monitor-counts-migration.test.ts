import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../platform/db/connection.js';
import { migrateSchema } from '../../../platform/db/migrate.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { tracingMigrations } from '../db/migrations/index.js';
import { monitorStore } from '../monitor/monitor.store.js';
import type { TracingDatabase } from '../db/database.js';

/**
 * Monitors' stats read their counts row (2026-11-28T1230-monitor-counts), which the recording statement adds to: the
 * migration fills it in from the results recorded before it, so a monitor's stats are the same across the upgrade.
 */
const COUNTS = '2026-11-28T1230-monitor-counts';

describe('the monitor-counts migration', () => {
  it('counts the results recorded before it, and recordResults adds to those counts', async () => {
    const db = connectDatabase(await createTestDatabase('t', { empty: true }), { max: 2 });
    try {
      const before = Object.fromEntries(Object.entries(tracingMigrations).filter(([name]) => name < COUNTS));
      await migrateSchema(db.root, 'tracing', before);
      const monitor = '01900000-0000-7000-8000-00000000000a';
      const idle = '01900000-0000-7000-8000-00000000000b';
      await sql`insert into tracing.monitors (id, project_id, name, op_names, attributes, roots_only, sampling_rate, scorer, created_by)
        values (${monitor}, 'team/p', 'm', '{}', '{}', false, 1, '{"kind":"regex","pattern":"x"}', 'u'),
               (${idle}, 'team/p', 'idle', '{}', '{}', false, 1, '{"kind":"regex","pattern":"x"}', 'u')`.execute(db.root);
      await sql`insert into tracing.monitor_results (monitor_id, call_id, outcome, score, reason, latency_ms, prompt_tokens, completion_tokens) values
        (${monitor}, 'c1', 'scored', 1, 'r', 2, 10, 1), (${monitor}, 'c2', 'scored', 0, 'r', 4, 20, 2),
        (${monitor}, 'c3', 'failed', null, 'judge failed', 6, null, null), (${monitor}, 'c4', 'skipped', null, null, null, null, null)`.execute(db.root);

      await migrateSchema(db.root, 'tracing', tracingMigrations);
      const tracing = db.forSchema<TracingDatabase>('tracing');
      const expected = { monitor_id: monitor, scored: 2, skipped: 1, failed: 1, mean_latency_ms: 4, mean_score: 0.5, prompt_tokens: 30, completion_tokens: 3 };
      expect(await monitorStore.stats(tracing, [monitor, idle])).toEqual([expected]);

      const counts = await tracing.transaction().execute((trx) =>
        monitorStore.recordResults(
          trx,
          [
            { monitor_id: monitor, call_id: 'c5', outcome: 'scored', score: 1, reason: 'r', latency_ms: 8, prompt_tokens: null, completion_tokens: null, feedback_id: null },
            // Recorded before: left as it was, and not counted again.
            { monitor_id: monitor, call_id: 'c1', outcome: 'scored', score: 0, reason: 'again', latency_ms: 100, prompt_tokens: 5, completion_tokens: 5, feedback_id: null },
          ],
          [],
        ),
      );
      expect(counts).toEqual({ scored: 1, skipped: 0, failed: 0 });
      expect(await monitorStore.stats(tracing, [monitor])).toEqual([{ ...expected, scored: 3, mean_latency_ms: 5, mean_score: 2 / 3 }]);
    } finally {
      await db.close();
    }
  });
});
