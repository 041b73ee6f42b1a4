import { sql, type Kysely } from 'kysely';

/**
 * Entity names (users and teams: a W&B entity is either) are unique ignoring case, across both. A user's name is
 * held in `teams` too (their personal team, created with them), so one unique index on lower(teams.name) makes the
 * namespace shared, atomically: of two concurrent creates of "TeamA" and "teama", as team or user, one fails.
 * users.username gets the same index for users among themselves.
 *
 * Existing data: a user without a same-named team (not made by this code; possible only by hand) gets one, with
 * the user as its admin. Names that already differ only in case (none in installs made by this code before, which
 * allowed them) make this migration fail with the list: which to rename is the operator's choice, since entity
 * names are also stored in every other subgraph's data. Rename all but one of each and start again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ holders: string }>`
    with names as (
      select 'team "' || name || '"' as holder, lower(name) as key from identity.teams
      union all
      select 'user "' || username || '"', lower(username) from identity.users u
        where not exists (select 1 from identity.teams t where t.name = u.username)
      union all
      -- users among themselves, in a key space of their own (":" cannot be in a name)
      select 'user "' || username || '"', 'user:' || lower(username) from identity.users
    )
    select string_agg(holder, ' and ' order by holder) as holders from names group by key having count(*) > 1
  `.execute(db);
  if (rows.length) {
    throw new Error(
      `entity names must be unique ignoring case, but these differ only in case: ${rows.map((row) => row.holders).join('; ')}. ` +
        'Rename all but one of each (identity.users.username or identity.teams.name, and that entity in the other subgraphs\' data) and start again.',
    );
  }
  await sql`
    with created as (
      insert into identity.teams (name)
      select username from identity.users u where not exists (select 1 from identity.teams t where t.name = u.username)
      returning id, name
    )
    insert into identity.memberships (team_id, user_id, role)
    select created.id, users.id, 'ADMIN' from created join identity.users users on users.username = created.name
  `.execute(db);
  await sql`create unique index teams_name_lower_unique on identity.teams (lower(name))`.execute(db);
  await sql`create unique index users_username_lower_unique on identity.users (lower(username))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index identity.users_username_lower_unique`.execute(db);
  await sql`drop index identity.teams_name_lower_unique`.execute(db);
}
