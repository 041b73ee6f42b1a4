import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { TracingDatabase } from '../db/database.js';
import { INPUT_TOKEN_KEYS, OUTPUT_TOKEN_KEYS, type ModelTokens } from './token-usage.js';

/** Which calls a total covers: one trace, or the calls started within [from, to) (either bound optional). */
export type TokenUsageScope = { projectId: string; traceId: string } | { projectId: string; from: Date | null; to: Date | null };

/** The first of `keys` in the usage entry `u` holding a non-negative number, as token-usage.ts reads one call. */
function tokensAt(keys: readonly string[]): RawBuilder<unknown> {
  const candidates = keys.map(
    (key) => sql`case when jsonb_typeof(u.value -> ${key}) = 'number' and (u.value ->> ${key})::numeric >= 0 then (u.value ->> ${key})::numeric end`,
  );
  return sql`coalesce(${sql.join(candidates)}, 0)`;
}

/**
 * Tokens per model over the calls of the scope, summed in PostgreSQL.
 *
 * The Weave SDKs roll each call's usage up into its parent's summary (the parent's `summary.usage` already includes
 * its children's), so summing every call would count a completion once per ancestor. A call's entry for a model is
 * therefore counted only when its parent has no entry for that model: for Weave's traces that is the root once it
 * has ended (its children while it still runs), and for calls whose parents do not roll up (the platform's own
 * traced completions, other clients) every call that reports usage.
 */
export async function aggregateTokens(db: Kysely<TracingDatabase>, scope: TokenUsageScope): Promise<ModelTokens[]> {
  const within =
    'traceId' in scope
      ? sql`c.trace_id = ${scope.traceId}`
      : sql.join(
          [sql`true`, ...(scope.from ? [sql`c.started_at >= ${scope.from}`] : []), ...(scope.to ? [sql`c.started_at < ${scope.to}`] : [])],
          sql` and `,
        );
  const { rows } = await sql<{ model: string; input_tokens: string; output_tokens: string }>`
    select u.key as model, sum(${tokensAt(INPUT_TOKEN_KEYS)}) as input_tokens, sum(${tokensAt(OUTPUT_TOKEN_KEYS)}) as output_tokens
    from tracing.calls c
    cross join lateral jsonb_each(case when jsonb_typeof(c.summary -> 'usage') = 'object' then c.summary -> 'usage' else '{}'::jsonb end) u
    where c.project_id = ${scope.projectId} and ${within} and jsonb_typeof(u.value) = 'object'
      and not exists (
        select 1 from tracing.calls p
        where p.project_id = c.project_id and p.id = c.parent_id
          and jsonb_typeof(p.summary -> 'usage') = 'object' and (p.summary -> 'usage') ? u.key
      )
    group by u.key
    order by u.key`.execute(db);
  return rows.map((row) => ({ model: row.model, inputTokens: Number(row.input_tokens), outputTokens: Number(row.output_tokens) }));
}
