import { sql, type Kysely } from 'kysely';

/**
 * Each monitor's counts — results by outcome, latency and score sums, judge tokens — kept with its results (the
 * statement recording results adds to them), so `Project.monitors { stats }` reads one row per monitor. It
 * aggregated every result of each monitor on every read: a Monitors page over a monitor with a million results read
 * a million rows. Counts of results recorded before this migration are filled in here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table tracing.monitor_counts (
      monitor_id uuid primary key references tracing.monitors (id) on delete cascade,
      scored bigint not null default 0,
      skipped bigint not null default 0,
      failed bigint not null default 0,
      -- latency of the results that ran a scorer (not skipped), score of the scored ones
      latency_sum double precision not null default 0,
      latency_n bigint not null default 0,
      score_sum double precision not null default 0,
      prompt_tokens bigint not null default 0,
      completion_tokens bigint not null default 0
    )`.execute(db);
  await sql`lock table tracing.monitor_results in share mode`.execute(db);
  await sql`
    insert into tracing.monitor_counts
    select monitor_id,
      count(*) filter (where outcome = 'scored'), count(*) filter (where outcome = 'skipped'), count(*) filter (where outcome = 'failed'),
      coalesce(sum(latency_ms) filter (where outcome <> 'skipped' and latency_ms is not null), 0),
      count(latency_ms) filter (where outcome <> 'skipped'),
      coalesce(sum(score) filter (where outcome = 'scored'), 0),
      coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0)
    from tracing.monitor_results group by monitor_id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('monitor_counts').ifExists().execute();
}
