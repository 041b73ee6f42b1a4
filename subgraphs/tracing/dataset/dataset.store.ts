import { sql, type Kysely } from 'kysely';
import type { TracingDatabase } from '../db/database.js';

/** What a dataset row can be read from. */
export interface CallFields {
  id: string;
  inputs: unknown;
  output: unknown;
  attributes: unknown;
}

const SCORER_PREFIX = 'wandb.runnable.';

/** Reads of calls and their scores for datasets built from traces (tracing's own tables). */
export const datasetStore = {
  /** The project's calls with these ids (in no particular order; missing ids are left out). */
  async callsByIds(db: Kysely<TracingDatabase>, projectId: string, ids: readonly string[]): Promise<CallFields[]> {
    return db.selectFrom('calls').select(['id', 'inputs', 'output', 'attributes']).where('project_id', '=', projectId).where('id', 'in', [...ids]).execute();
  },

  /** Each call's latest score of each scorer named (feedback `wandb.runnable.<scorer>`'s output), by call id and scorer. */
  async latestScores(db: Kysely<TracingDatabase>, projectId: string, callIds: readonly string[], scorers: readonly string[]): Promise<Map<string, Map<string, unknown>>> {
    const scores = new Map<string, Map<string, unknown>>();
    if (callIds.length === 0 || scorers.length === 0) return scores;
    const refs = callIds.map((id) => `weave:///${projectId}/call/${id}`);
    const types = scorers.map((scorer) => SCORER_PREFIX + scorer);
    const { rows } = await sql<{ weave_ref: string; feedback_type: string; output: unknown }>`
      select distinct on (weave_ref, feedback_type) weave_ref, feedback_type, payload -> 'output' as output
      from tracing.feedback
      where project_id = ${projectId} and weave_ref = any(${refs}::text[]) and feedback_type = any(${types}::text[])
      order by weave_ref, feedback_type, created_ms desc, id desc`.execute(db);
    for (const row of rows) {
      const callId = row.weave_ref.slice(row.weave_ref.lastIndexOf('/') + 1);
      const byScorer = scores.get(callId) ?? new Map<string, unknown>();
      byScorer.set(row.feedback_type.slice(SCORER_PREFIX.length), row.output);
      scores.set(callId, byScorer);
    }
    return scores;
  },
};
