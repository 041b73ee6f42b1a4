import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../platform/db/connection.js';
import { freePort, loadEmbeddedPostgres, startEmbeddedPostgres } from '../../platform/db/embedded-postgres.js';
import { migrateEverything } from '../support/template-database.js';

/**
 * Who can connect to the embedded server. It used to be the superuser `postgres` with the fixed password
 * `trellis-embedded` on 127.0.0.1, so any local process had the whole cluster.
 */
const LEGACY_PASSWORD = 'trellis-embedded';
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trellis-pg-access-'));
  dirs.push(dir);
  await chmod(dir, 0o755); // as root, the server runs as the postgres OS user: it must reach the data directory
  return dir;
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The error of connecting, or 'connected'. */
async function tryConnect(config: pg.ClientConfig): Promise<string> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.end();
    return 'connected';
  } catch (error) {
    return String((error as { code?: string }).code ?? error);
  }
}

/** What the platform's role may do, and what in its database is not its own. */
async function platformRole(url: string) {
  const [role] = await query<{ rolname: string; rolsuper: boolean; rolcreatedb: boolean; owns_database: boolean }>(
    url,
    `select rolname, rolsuper, rolcreatedb,
       (select datdba from pg_database where datname = current_database()) = oid as owns_database
     from pg_roles where rolname = current_user`,
  );
  const foreign = await query<{ object: string }>(
    url,
    `select 'schema ' || nspname as object from pg_namespace
       where nspowner not in ((select oid from pg_roles where rolname = current_user), 'pg_database_owner'::regrole)
         and nspname not in ('pg_catalog', 'information_schema') and nspname not like 'pg\\_%'
     union all
     select 'relation ' || c.oid::regclass from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relowner <> (select oid from pg_roles where rolname = current_user)
         and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
     union all
     select 'routine ' || p.oid::regprocedure from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where p.proowner <> (select oid from pg_roles where rolname = current_user)
         and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
     union all
     select 'type ' || t.oid::regtype from pg_type t join pg_namespace n on n.oid = t.typnamespace
       where t.typowner <> (select oid from pg_roles where rolname = current_user)
         and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`,
  );
  return { ...role, foreign: foreign.map((row) => row.object) };
}

describe('embedded PostgreSQL access', () => {
  it('gives the platform a non-superuser role with a random password, on a private Unix socket; the fixed password is refused', async () => {
    const dataDir = path.join(await tempDir(), 'postgres');
    const server = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    try {
      for (const file of [`${dataDir}.password`, `${dataDir}.superuser-password`]) {
        expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
      }
      const url = new URL(server.url);
      expect(url.password).not.toBe(LEGACY_PASSWORD);
      expect(url.searchParams.get('host')).toBe(dataDir); // the socket's directory
      expect(((await stat(dataDir)).mode & 0o777).toString(8)).toBe('700');

      expect(await platformRole(server.url)).toEqual({ rolname: 'trellis', rolsuper: false, rolcreatedb: true, owns_database: true, foreign: [] });
      // The old fixed credentials: refused on the socket, and there is no TCP listener at all.
      expect(await tryConnect({ host: dataDir, port: server.port, user: 'postgres', password: LEGACY_PASSWORD, database: 'postgres' })).toBe('28P01');
      expect(await tryConnect({ host: '127.0.0.1', port: server.port, user: 'postgres', password: LEGACY_PASSWORD, database: 'postgres' })).toBe('ECONNREFUSED');

      // As tests do: a database per file, every migration run by the (non-superuser) owner.
      const own = await createDatabase(server.url, 'access_check');
      await migrateEverything(own);
      expect(await platformRole(own)).toMatchObject({ rolsuper: false, owns_database: true, foreign: [] });
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('migrates a data directory made with the fixed superuser password: new passwords, the platform role owns the old data', async () => {
    const dataDir = path.join(await tempDir(), 'postgres');
    // A data directory as the previous release left it: everything created by the superuser over TCP.
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const port = await freePort();
    const legacy = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password: LEGACY_PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: ['--encoding=UTF8', '--no-locale'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
      onLog: () => undefined,
      onError: () => undefined,
    });
    await legacy.initialise();
    await legacy.start();
    const legacyUrl = `postgres://postgres:${LEGACY_PASSWORD}@127.0.0.1:${port}/postgres`;
    try {
      await migrateEverything(legacyUrl);
      await query(
        legacyUrl,
        `create schema odds;
         create type odds.mood as enum ('calm', 'busy');
         create domain odds.positive as int check (value > 0);
         create sequence odds.counter;
         create table odds.things (id bigint generated always as identity primary key, mood odds.mood, size odds.positive);
         create view odds.calm_things as select * from odds.things where mood = 'calm';
         create function odds.touch() returns trigger language plpgsql as $$ begin new.size := coalesce(new.size, 1); return new; end $$;
         create trigger touch before insert on odds.things for each row execute function odds.touch();
         insert into odds.things (mood) values ('calm');
         insert into identity.users (id, username) values ('00000000-0000-7000-8000-000000000001', 'legacy-user')`,
      );
    } finally {
      await legacy.stop();
    }

    const server = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    try {
      expect(await platformRole(server.url)).toEqual({ rolname: 'trellis', rolsuper: false, rolcreatedb: true, owns_database: true, foreign: [] });
      expect(await query(server.url, 'select username from identity.users')).toEqual([{ username: 'legacy-user' }]);
      // The owner can change what the superuser made: later migrations will.
      await migrateEverything(server.url);
      await query(
        server.url,
        `alter table odds.things add column note text;
         insert into odds.things (mood) values ('busy');
         select nextval('odds.counter');
         create or replace function odds.touch() returns trigger language plpgsql as $$ begin return new; end $$;
         select graphile_worker.add_job('access_check', '{}'::json)`,
      );
      expect(await query(server.url, 'select count(*)::int as n from odds.calm_things')).toEqual([{ n: 1 }]);
      expect(await tryConnect({ host: dataDir, port: server.port, user: 'postgres', password: LEGACY_PASSWORD, database: 'postgres' })).toBe('28P01');
      for (const file of [`${dataDir}.password`, `${dataDir}.superuser-password`]) {
        expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
      }
    } finally {
      await server.stop();
    }

    // Later starts keep the generated passwords (idempotent bootstrap).
    const again = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    try {
      expect(await query(server.url.replace(/:\d+\//, `:${again.port}/`), 'select username from identity.users')).toEqual([{ username: 'legacy-user' }]);
    } finally {
      await again.stop();
    }
  }, 180_000);

  it('falls back to loopback TCP, still with the random password, when the socket path would be too long', async () => {
    const parent = path.join(await tempDir(), 'a-directory-name-long-enough-that-a-unix-socket-path-in-it-exceeds-the-kernel-limit');
    await mkdir(parent, { mode: 0o755 });
    const dataDir = path.join(parent, 'postgres');
    const server = await startEmbeddedPostgres({ dataDir, ephemeral: true });
    try {
      expect(new URL(server.url).hostname).toBe('127.0.0.1');
      expect(await platformRole(server.url)).toMatchObject({ rolsuper: false });
      expect(await tryConnect({ host: '127.0.0.1', port: server.port, user: 'postgres', password: LEGACY_PASSWORD, database: 'postgres' })).toBe('28P01');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
