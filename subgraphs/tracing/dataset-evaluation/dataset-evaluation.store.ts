import { sql, type Kysely } from 'kysely';
import type { TracingDatabase } from '../db/database.js';

export interface RunningRunKey {
  project_id: string;
  run_id: string;
}

/** The platform's running evaluation runs (dataset_evaluation_runs) and how they end. Kysely queries only. */
export const datasetEvaluationStore = {
  async claim(db: Kysely<TracingDatabase>, runs: readonly RunningRunKey[], owner: string): Promise<void> {
    if (runs.length === 0) return;
    await db
      .insertInto('dataset_evaluation_runs')
      .values(runs.map((run) => ({ ...run, owner })))
      .execute();
  },

  /** The owner's runs are alive: their heartbeat is now. */
  async heartbeat(db: Kysely<TracingDatabase>, owner: string): Promise<void> {
    await db.updateTable('dataset_evaluation_runs').set({ heartbeat_at: sql<Date>`now()` }).where('owner', '=', owner).execute();
  },

  async release(db: Kysely<TracingDatabase>, run: RunningRunKey): Promise<void> {
    await db.deleteFrom('dataset_evaluation_runs').where('project_id', '=', run.project_id).where('run_id', '=', run.run_id).execute();
  },

  /** Removes the runs whose heartbeat is older than `staleSeconds` (their process is gone) and answers them. */
  async takeStale(db: Kysely<TracingDatabase>, staleSeconds: number): Promise<RunningRunKey[]> {
    return db
      .deleteFrom('dataset_evaluation_runs')
      .where('heartbeat_at', '<', sql<Date>`now() - make_interval(secs => ${staleSeconds})`)
      .returning(['project_id', 'run_id'])
      .execute();
  },

  /**
   * Ends an evaluation run call: its summary as output, and `exception` when it did not run to its end (then the
   * Evaluations page shows it as an error with that reason). A run already ended is left as it was.
   */
  async finishRun(db: Kysely<TracingDatabase>, run: RunningRunKey, summary: unknown, exception: string | null): Promise<void> {
    await db
      .updateTable('calls')
      .set({ ended_at: new Date(), output: JSON.stringify(summary) as never, summary: '{}' as never, exception })
      .where('project_id', '=', run.project_id)
      .where('id', '=', run.run_id)
      .where('kind', '=', 'evaluation_run')
      .where('ended_at', 'is', null)
      .execute();
  },
};
