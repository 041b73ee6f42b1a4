import { sql, type Kysely } from 'kysely';

/**
 * Full-text search over the calls' inputs and outputs (the traces list's search box, Project.calls' `search.text`).
 *
 * `search_vector` is a stored generated column: PostgreSQL computes it on every write of a call (a start writes the
 * inputs, an end the output), so the search never parses JSON at read time, and the GIN index finds the calls
 * holding a word without scanning the table. Only core PostgreSQL is used (no extension), so an external server
 * needs nothing beyond what Trellis already asks for.
 *
 * What is indexed: every string and number value of `inputs` and `output`, at any depth (not the JSON keys, which
 * every call of an op shares), with the `simple` configuration — lower-cased words, no stemming and no stop words,
 * since traced text is in any language and often code. At most 100,000 characters per call are indexed: a tsvector
 * is limited to 1 MB, and a call whose text would exceed it must still be stored (a longer text is searchable by its
 * beginning only).
 *
 * Adding the column rewrites tracing.calls once (the migration holds it locked while it computes every call's vector);
 * on a large existing install, expect about a minute per million calls.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function tracing.call_search_text(inputs jsonb, output jsonb) returns text
    language sql immutable parallel safe as $$
      select left(string_agg(v.value #>> '{}', ' '), 100000)
      from (
        select jsonb_path_query(coalesce(inputs, 'null'), 'strict $.** ? (@.type() == "string" || @.type() == "number")') as value
        union all
        select jsonb_path_query(coalesce(output, 'null'), 'strict $.** ? (@.type() == "string" || @.type() == "number")')
      ) as v
    $$`.execute(db);
  await sql`
    alter table tracing.calls add column search_vector tsvector
      generated always as (to_tsvector('simple'::regconfig, coalesce(tracing.call_search_text(inputs, output), ''))) stored`.execute(db);
  await sql`create index calls_search on tracing.calls using gin (search_vector)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists tracing.calls_search`.execute(db);
  await sql`alter table tracing.calls drop column if exists search_vector`.execute(db);
  await sql`drop function if exists tracing.call_search_text(jsonb, jsonb)`.execute(db);
}
