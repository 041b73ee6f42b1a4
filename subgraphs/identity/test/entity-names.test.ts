import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../../platform/db/connection.js';
import { migrateSchema } from '../../../platform/db/migrate.js';
import { createTestDatabase } from '../../../test/support/database.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { identityMigrations } from '../db/migrations/index.js';
import { identitySubgraph } from '../index.js';

/**
 * Users and teams share one namespace of entity names (a W&B entity is a user or a team), unique ignoring case:
 * `TEAMA` next to `teama` used to be allowed, and a team named like a later user made that user's creation fail
 * with an unexplained conflict.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(async () => {
  await platform?.close();
});

const createUser = (username: string) => platform.graphql('mutation($u: String!) { createUser(username: $u) { username } }', { u: username });
const createTeam = (name: string) => platform.graphql('mutation($n: String!) { createTeam(name: $n) { name } }', { n: name });

function expectTaken(result: { body: any }, name: string, holder: string) {
  expect(result.body.data?.createUser ?? result.body.data?.createTeam ?? null).toBeNull();
  const [error] = result.body.errors ?? [];
  expect(error?.extensions?.code).toBe('CONFLICT');
  expect(error?.message).toBe(`The name "${name}" is taken by ${holder}: user and team names share one namespace and are unique ignoring case`);
}

async function holders(name: string) {
  const users = await sql<{ username: string }>`select username from identity.users where lower(username) = lower(${name})`.execute(platform.db.root);
  const teams = await sql<{ name: string }>`select name from identity.teams where lower(name) = lower(${name})`.execute(platform.db.root);
  return { users: users.rows.map((row) => row.username), teams: teams.rows.map((row) => row.name) };
}

describe('entity names', () => {
  it('refuses a team whose name differs from a team\'s or a user\'s only in case', async () => {
    expect((await createTeam('TeamA')).body.data.createTeam.name).toBe('TeamA');
    expectTaken(await createTeam('teama'), 'teama', 'the team "TeamA"');
    expectTaken(await createTeam('TeamA'), 'TeamA', 'the team "TeamA"');
    expect((await createUser('casey')).body.data.createUser.username).toBe('casey');
    expectTaken(await createTeam('CASEY'), 'CASEY', 'the user "casey"');
    expect(await holders('teama')).toEqual({ users: [], teams: ['TeamA'] });
  });

  it('refuses a user named like a team or user in any case, creating nothing', async () => {
    await createTeam('future');
    expectTaken(await createUser('future'), 'future', 'the team "future"');
    expectTaken(await createUser('Future'), 'Future', 'the team "future"');
    expect(await holders('future')).toEqual({ users: [], teams: ['future'] });
    await createUser('dana');
    expectTaken(await createUser('DANA'), 'DANA', 'the user "dana"');
    expect(await holders('dana')).toEqual({ users: ['dana'], teams: ['dana'] });
  });

  it('lets exactly one of concurrent creates of one name in different cases succeed', async () => {
    const results = await Promise.all([createTeam('Race'), createUser('race'), createTeam('RACE'), createUser('RaCe'), createTeam('race'), createUser('rAcE')]);
    const won = results.filter((result) => !result.body.errors);
    expect(won).toHaveLength(1);
    for (const result of results.filter((candidate) => candidate.body.errors)) expect(result.body.errors[0].extensions.code).toBe('CONFLICT');
    const { users, teams } = await holders('race');
    expect(teams).toHaveLength(1);
    expect(users.length).toBeLessThanOrEqual(1);
  });
});

describe('the entity-names migration on existing data', () => {
  async function legacyDatabase(rows: (db: ReturnType<typeof connectDatabase>) => Promise<void>) {
    const db = connectDatabase(await createTestDatabase('t', { empty: true }), { max: 2 });
    await migrateSchema(db.root, 'identity', { '2026-11-21T1000-create-identity': identityMigrations['2026-11-21T1000-create-identity']! });
    await rows(db);
    return db;
  }

  it('fails, naming them, when names already differ only in case', async () => {
    const db = await legacyDatabase(async ({ root }) => {
      await sql`insert into identity.teams (name) values ('TEAMA'), ('teama'), ('solo')`.execute(root);
      await sql`insert into identity.users (username) values ('Kim'), ('kim')`.execute(root);
    });
    try {
      await expect(identitySubgraph.migrate(db)).rejects.toThrow(
        /entity names must be unique ignoring case, but these differ only in case: .*team "TEAMA" and team "teama".*user "Kim" and user "kim"/,
      );
      // Nothing changed: the migration is not recorded, the data is as it was.
      const teams = await sql<{ name: string }>`select name from identity.teams order by name`.execute(db.root);
      expect(teams.rows.map((row) => row.name)).toEqual(['TEAMA', 'solo', 'teama']);
    } finally {
      await db.close();
    }
  });

  it('gives a user without a same-named team one (users hold their names in teams), then enforces the rule', async () => {
    const db = await legacyDatabase(async ({ root }) => {
      await sql`insert into identity.users (username) values ('lonely')`.execute(root);
      await sql`insert into identity.teams (name) values ('crew')`.execute(root);
    });
    try {
      expect(await identitySubgraph.migrate(db)).toEqual(['2026-11-25T1000-entity-names-ignore-case', '2026-11-28T1000-principal-change-followers', '2026-11-28T1100-project-description']);
      const members = await sql<{ team: string; username: string; role: string }>`
        select t.name as team, u.username, m.role from identity.memberships m
        join identity.teams t on t.id = m.team_id join identity.users u on u.id = m.user_id`.execute(db.root);
      expect(members.rows).toEqual([{ team: 'lonely', username: 'lonely', role: 'ADMIN' }]);
      await expect(sql`insert into identity.teams (name) values ('LONELY')`.execute(db.root)).rejects.toThrow(/teams_name_lower_unique/);
      await expect(sql`insert into identity.users (username) values ('Lonely')`.execute(db.root)).rejects.toThrow(/users_username_lower_unique/);
    } finally {
      await db.close();
    }
  });
});
