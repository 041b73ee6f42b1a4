import DataLoader from 'dataloader';
import { sql, type Kysely } from 'kysely';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TracingDatabase } from '../db/database.js';
import { callRef } from '../refs.js';
import { CallFeedbackSummary } from './call-list.type.js';

const REACTION = 'wandb.reaction.1';
const NOTE = 'wandb.note.1';
const SCORER_PREFIX = 'wandb.runnable.';

interface SummaryRow {
  weave_ref: string;
  kind: 'reaction' | 'note' | 'score';
  /** The emoji of reactions, the scorer of scores, null for notes. */
  label: string | null;
  count: number;
  /** The latest score's output (scores only). */
  value: unknown;
}

/**
 * The feedback summaries of a page of calls of one project, in one statement through the feedback table's
 * (project_id, weave_ref) index: reactions counted by emoji, notes counted, each scorer's latest output.
 */
async function readSummaries(db: Kysely<TracingDatabase>, projectId: string, refs: string[]): Promise<SummaryRow[]> {
  const { rows } = await sql<SummaryRow>`
    with f as (
      select weave_ref, feedback_type, payload, created_ms, id from tracing.feedback
      where project_id = ${projectId} and weave_ref = any(${refs}::text[])
        and (feedback_type in (${REACTION}, ${NOTE}) or starts_with(feedback_type, ${SCORER_PREFIX}))
    )
    select weave_ref, 'reaction' as kind, payload ->> 'emoji' as label, count(*)::int as count, null::jsonb as value
      from f where feedback_type = ${REACTION} group by weave_ref, payload ->> 'emoji'
    union all
    select weave_ref, 'note', null, count(*)::int, null from f where feedback_type = ${NOTE} group by weave_ref
    union all
    (select distinct on (weave_ref, feedback_type) weave_ref, 'score', substr(feedback_type, ${SCORER_PREFIX.length + 1}), 1, payload -> 'output'
      from f where starts_with(feedback_type, ${SCORER_PREFIX}) order by weave_ref, feedback_type, created_ms desc, id desc)`.execute(db);
  return rows;
}

function toSummary(rows: SummaryRow[]): CallFeedbackSummary {
  const reactions = rows
    .filter((row) => row.kind === 'reaction' && row.label)
    .map((row) => ({ emoji: row.label!, count: row.count }))
    .sort((a, b) => b.count - a.count || (a.emoji < b.emoji ? -1 : 1));
  const notes = rows.find((row) => row.kind === 'note')?.count ?? 0;
  const scores = rows
    .filter((row) => row.kind === 'score')
    .map((row) => ({ scorer: row.label!, value: row.value }))
    .sort((a, b) => (a.scorer < b.scorer ? -1 : 1));
  return Object.assign(new CallFeedbackSummary(), { reactions, notes, scores });
}

interface CallKey {
  projectId: string;
  id: string;
}
const loaders = new WeakMap<GraphQLContext, DataLoader<CallKey, CallFeedbackSummary, string>>();

/** The request's loader of feedback summaries: the calls of a page are summarized together. */
export function feedbackSummaryLoader(db: Kysely<TracingDatabase>, context: GraphQLContext): DataLoader<CallKey, CallFeedbackSummary, string> {
  let loader = loaders.get(context);
  if (!loader) {
    loader = new DataLoader<CallKey, CallFeedbackSummary, string>(
      async (keys) => {
        const byRef = new Map<string, SummaryRow[]>();
        for (const projectId of new Set(keys.map((key) => key.projectId))) {
          const refs = keys.filter((key) => key.projectId === projectId).map((key) => callRef(projectId, key.id));
          for (const row of await readSummaries(db, projectId, refs)) byRef.set(row.weave_ref, [...(byRef.get(row.weave_ref) ?? []), row]);
        }
        return keys.map((key) => toSummary(byRef.get(callRef(key.projectId, key.id)) ?? []));
      },
      { cacheKeyFn: (key) => `${key.projectId}\u0000${key.id}` },
    );
    loaders.set(context, loader);
  }
  return loader;
}
