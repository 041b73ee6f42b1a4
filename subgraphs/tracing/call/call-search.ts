import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { parseIsoDateTime } from '../schema-helpers.js';
import { CallSearchSchema, type CallSearch } from './call-search.schemas.js';

/** Where a search sits in a read request's body (and so where its issues are reported). */
const AT = ['body', 'search'];

/** Weave's feedback types the feedback conditions look for. */
const REACTION_TYPE = 'wandb.reaction.1';
const SCORER_TYPE_PREFIX = 'wandb.runnable.';

/** A letter or a digit: text without one has no word to search for. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

const column = (name: string) => sql.ref(`calls.${name}`);

/**
 * The one place a CallSearch (call-search.schemas.ts) is validated and turned into a condition on tracing.calls, for
 * GraphQL (Project.calls, Project.callCount) and the export route alike. `search` is in wire form; problems are
 * reported together at `["body","search",…]`. Null when nothing is asked.
 *
 * Every part is served by an index: the words by the GIN index on `search_vector` (migration 2026-11-28T0600), the
 * window by (project_id, started_at, id), feedback by the feedback table's (project_id, weave_ref).
 */
export function compileCallSearch(search: unknown): CompiledCallSearch | null {
  if (search === null || search === undefined) return null;
  const valid = validateAt(search);
  const issues: ValidationIssue[] = [];
  const parts: RawBuilder<unknown>[] = [];

  if (valid.text !== undefined && valid.text !== null) {
    if (!WORD_CHARACTER.test(valid.text)) issues.push({ loc: [...AT, 'text'], msg: 'Search text needs at least one letter or digit', type: 'value_error' });
    // websearch_to_tsquery never fails on user input: quotes, `-` and `or` are its syntax, anything else separates words.
    else parts.push(sql`${column('search_vector')} @@ websearch_to_tsquery('simple'::regconfig, ${valid.text})`);
  }

  const after = dateAt(valid.started_after, 'started_after', issues);
  const before = dateAt(valid.started_before, 'started_before', issues);
  if (after && before && after >= before) {
    issues.push({ loc: [...AT, 'started_before'], msg: 'started_before must be later than started_after', type: 'value_error' });
  }
  if (after) parts.push(sql`${column('started_at')} >= ${after.toISOString()}::timestamptz`);
  if (before) parts.push(sql`${column('started_at')} < ${before.toISOString()}::timestamptz`);

  (valid.attributes ?? []).forEach(({ key, value }, index) => {
    const path = key.split('.');
    if (path.some((part) => part === '')) {
      issues.push({ loc: [...AT, 'attributes', index, 'key'], msg: `"${key}" has an empty path segment`, type: 'value_error' });
      return;
    }
    parts.push(sql`(${column('attributes')} #>> ${path}::text[]) = ${value}`);
  });

  if (valid.reaction) {
    const emoji = valid.reaction === '*' ? sql`` : sql`and f.payload ->> 'emoji' = ${valid.reaction}`;
    parts.push(feedbackExists(sql`f.feedback_type = ${REACTION_TYPE} ${emoji}`));
  }
  if (valid.scorer) {
    parts.push(
      feedbackExists(
        valid.scorer === '*'
          ? sql`starts_with(f.feedback_type, ${SCORER_TYPE_PREFIX})`
          : sql`f.feedback_type = ${SCORER_TYPE_PREFIX + valid.scorer}`,
      ),
    );
  }

  if (issues.length > 0) throw new ValidationFailedError(issues);
  if (parts.length === 0) return null;
  return { condition: sql<SqlBool>`(${sql.join(parts, sql` and `)})`, fullText: Boolean(valid.text) };
}

export interface CompiledCallSearch {
  condition: RawBuilder<SqlBool>;
  /** Whether the condition matches words (so reads should start from the search index). */
  fullText: boolean;
}

/** Feedback on the call (Weave attaches it by the call's ref) that the condition selects. */
function feedbackExists(condition: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`exists (select 1 from tracing.feedback f
    where f.project_id = ${column('project_id')} and f.weave_ref = 'weave:///' || ${column('project_id')} || '/call/' || ${column('id')}
      and ${condition})`;
}

function validateAt(search: unknown): CallSearch {
  try {
    return validateOrThrow(CallSearchSchema, search, 'body');
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    throw new ValidationFailedError((error.issues ?? []).map((issue) => ({ ...issue, loc: [...AT, ...issue.loc.slice(1)] })));
  }
}

function dateAt(value: string | null | undefined, field: string, issues: ValidationIssue[]): Date | null {
  if (value === null || value === undefined) return null;
  const date = parseIsoDateTime(value);
  if (Number.isNaN(date.getTime())) {
    issues.push({ loc: [...AT, field], msg: 'Input should be a valid datetime', type: 'datetime_parsing' });
    return null;
  }
  return date;
}
