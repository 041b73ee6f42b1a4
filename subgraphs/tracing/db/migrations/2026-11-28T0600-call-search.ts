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
 * since traced text is in any language and often code. A tsvector is limited to 1 MB (its distinct words and their
 * positions), and a call that would exceed it must still be stored: calls whose JSON text is at most 250,000 bytes
 * (nearly all) are indexed whole by jsonb_to_tsvector, which cannot exceed the limit from that much text; larger
 * ones by the string values' first 50,000 characters (tracing.call_search_text), so they are searchable by their
 * beginning only.
 *
 * Adding the column rewrites tracing.calls once (the migration holds it locked while it computes every call's vector);
 * on a large existing install, expect about a minute per million calls.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function tracing.call_search_text(inputs jsonb, output jsonb) returns text
    language sql immutable parallel safe as $$
      select left(string_agg(v.value #>> '{}', ' '), 50000)
      from (
        select jsonb_path_query(coalesce(inputs, 'null'), 'strict $.** ? (@.type() == "string" || @.type() == "number")') as value
        union all
        select jsonb_path_query(coalesce(output, 'null'), 'strict $.** ? (@.type() == "string" || @.type() == "number")')
      ) as v
    $$`.execute(db);
  // One expression without a FROM, so PostgreSQL inlines it into the column's generation.
  await sql`
    create function tracing.call_search_vector(inputs jsonb, output jsonb) returns tsvector
    language sql immutable parallel safe as $$
      select case
        when octet_length(coalesce(inputs, 'null')::text) + octet_length(coalesce(output, 'null')::text) <= 250000
          then jsonb_to_tsvector('simple'::regconfig, coalesce(inputs, 'null'), '["string", "numeric"]')
            || jsonb_to_tsvector('simple'::regconfig, coalesce(output, 'null'), '["string", "numeric"]')
        else to_tsvector('simple'::regconfig, coalesce(tracing.call_search_text(inputs, output), ''))
      end
    $$`.execute(db);
  await sql`
    alter table tracing.calls add column search_vector tsvector
      generated always as (tracing.call_search_vector(inputs, output)) stored`.execute(db);
  await sql`create index calls_search on tracing.calls using gin (search_vector)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists tracing.calls_search`.execute(db);
  await sql`alter table tracing.calls drop column if exists search_vector`.execute(db);
  await sql`drop function if exists tracing.call_search_vector(jsonb, jsonb)`.execute(db);
  await sql`drop function if exists tracing.call_search_text(jsonb, jsonb)`.execute(db);
}
