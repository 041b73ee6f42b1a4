import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { loadConfig } from '../platform/config.js';
import { connectDatabase } from '../platform/db/connection.js';
import { migrateSchema } from '../platform/db/migrate.js';
import { embeddedUrl, runningServer, startEmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { NotFoundError, TrellisError } from '../platform/errors.js';
import { createLogger } from '../platform/logger.js';
import type { TeamRole } from '../platform/auth/principal.js';
import type { IdentityDatabase } from '../subgraphs/identity/db/database.js';
import { identityMigrations } from '../subgraphs/identity/db/migrations/index.js';
import { Authenticator } from '../subgraphs/identity/authenticator.js';
import { IdentityService } from '../subgraphs/identity/identity-service.js';

/**
 * `npm run cli -- <command>`: operator commands for users, teams, projects and API keys. It works on the same
 * database as the platform (DATABASE_URL, the embedded server of a running platform, or the embedded data
 * directory started just for the command) and runs identity's own domain service, so the rules are the same as
 * through GraphQL. The operator acts as a platform administrator.
 */
const USAGE = `usage: npm run cli -- <command>
  user create <username> [--email E] [--admin]
  team create <name> --owner <username>
  team add-member <team> <username> [--role ADMIN|MEMBER]
  project create <entity> <name>
  key create <username> [--name NAME]      prints the new key once
  key list <username>
  key revoke <key-id>

Through a running platform (TRELLIS_URL, default http://127.0.0.1:$PORT; TRELLIS_API_KEY = your key):
  graphql '<operation>' [--variables '{...}']   any query or mutation, e.g. webhooks and automations
  secret create <team> <name>                  the value is read from standard input
  secret rotate <team> <name>                  (never from arguments: they show in process lists)`;

/**
 * Exit codes, the same for every command: 0 done; 1 refused by the platform's rules (not found, taken, not allowed,
 * invalid); 2 the command line is wrong (usage printed); 3 the database or the platform cannot be reached.
 */
const EXIT = { done: 0, refused: 1, usage: 2, unreachable: 3 } as const;

class UsageError extends Error {}

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h', default: false },
        email: { type: 'string' },
        admin: { type: 'boolean', default: false },
        owner: { type: 'string' },
        role: { type: 'string', default: 'MEMBER' },
        name: { type: 'string', default: 'cli' },
        variables: { type: 'string' },
      },
    });
  } catch (error) {
    // parseArgs says what is wrong (an unknown option, an option without its value) in its message.
    fail(EXIT.usage, `${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

function fail(code: number, message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

/** What went wrong, for a person: the platform's own errors as they are, unreachable services said plainly. */
function explain(error: unknown): { code: number; message: string } {
  if (error instanceof UsageError) return { code: EXIT.usage, message: `${error.message}\n${USAGE}` };
  if (error instanceof TrellisError) return { code: error.status >= 500 ? EXIT.unreachable : EXIT.refused, message: error.message };
  const cause = error as NodeJS.ErrnoException & { code?: string };
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET'].includes(cause.code ?? '') || cause.message === 'fetch failed') {
    return { code: EXIT.unreachable, message: `cannot reach ${cause.message === 'fetch failed' ? 'the platform' : 'the database'}: ${describeCause(error)}` };
  }
  return { code: EXIT.refused, message: describeCause(error) };
}

function describeCause(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause instanceof Error ? `${message} (${cause.message})` : message;
}

const { positionals, values } = parseCommandLine();
if (values.help || positionals.length === 0 || positionals[0] === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(positionals.length === 0 && !values.help ? EXIT.usage : EXIT.done);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const OPERATOR = { userId: '', username: 'operator', isAdmin: true, apiKeyId: '', defaultEntity: '', teams: {}, projectAdmin: [], registryAdmin: [] };

async function run(identity: IdentityService, [noun, verb, ...args]: string[]): Promise<unknown> {
  const need = (index: number, what: string) => {
    const value = args[index];
    if (!value) throw new UsageError(`missing ${what}`);
    return value;
  };
  switch (`${noun} ${verb}`) {
    case 'user create':
      return identity.createUser({ username: need(0, 'username'), email: values.email ?? null, isAdmin: values.admin });
    case 'team create': {
      if (!values.owner) throw new UsageError('--owner <username> is required');
      const owner = await identity.userByUsername(values.owner);
      if (!owner) throw new NotFoundError(`User "${values.owner}" does not exist`);
      return identity.createTeam(need(0, 'team name'), { userId: owner.id });
    }
    case 'team add-member': {
      const role = values.role as TeamRole;
      if (role !== 'ADMIN' && role !== 'MEMBER') throw new UsageError('--role must be ADMIN or MEMBER');
      return identity.setTeamMember(OPERATOR, need(0, 'team'), need(1, 'username'), role);
    }
    case 'project create':
      return identity.createProject(OPERATOR, need(0, 'entity'), need(1, 'project name'));
    case 'key create': {
      const user = await identity.userByUsername(need(0, 'username'));
      if (!user) throw new NotFoundError(`User "${args[0]}" does not exist`);
      const { key, apiKey } = await identity.createApiKey(user.id, values.name ?? 'cli');
      return { key, id: apiKey.id, name: apiKey.name, note: 'store the key now: it cannot be shown again' };
    }
    case 'key list': {
      const user = await identity.userByUsername(need(0, 'username'));
      if (!user) throw new NotFoundError(`User "${args[0]}" does not exist`);
      return identity.apiKeysOfUser(user.id);
    }
    case 'key revoke': {
      const id = need(0, 'key id');
      // Key ids are UUIDs (`key list` shows them): anything else names no key, and PostgreSQL would refuse the cast.
      if (!UUID.test(id)) throw new NotFoundError(`API key ${id} does not exist (key ids look like 0192…-…; see key list <username>)`);
      return identity.revokeApiKey(OPERATOR, id);
    }
    default:
      throw new UsageError(`unknown command "${[noun, verb].filter(Boolean).join(' ')}"`);
  }
}

/** Commands that act through the running platform's GraphQL API, as the holder of TRELLIS_API_KEY. */
async function runThroughPlatform([noun, verb, ...args]: string[]): Promise<unknown> {
  const key = process.env.TRELLIS_API_KEY;
  if (!key) throw new UsageError('set TRELLIS_API_KEY to your API key');
  const url = process.env.TRELLIS_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`;
  const call = async (query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: { issues?: { loc: (string | number)[]; msg: string }[] } }[];
    };
    if (body.errors?.length) {
      const messages = body.errors.map((error) =>
        [error.message, ...(error.extensions?.issues ?? []).map((issue) => `${issue.loc.join('.')}: ${issue.msg}`)].join(' — '),
      );
      throw new TrellisError(response.status === 200 ? 400 : response.status, 'BAD_REQUEST', messages.join('; '));
    }
    return body.data;
  };
  if (noun === 'graphql') {
    const query = verb === '-' || verb === undefined ? await readStdin() : verb;
    return call(query, values.variables ? (JSON.parse(values.variables) as Record<string, unknown>) : {});
  }
  if (noun === 'secret' && (verb === 'create' || verb === 'rotate')) {
    const [team, name] = args;
    if (!team || !name) throw new UsageError('usage: secret create|rotate <team> <name> (value on standard input)');
    const value = (await readStdin()).replace(/\r?\n$/, '');
    if (!value) throw new UsageError('the secret value is read from standard input, which was empty');
    const field = verb === 'create' ? 'createSecret' : 'rotateSecret';
    return call(`mutation($team: String!, $name: String!, $value: String!) { ${field}(team: $team, name: $name, value: $value) { name } }`, { team, name, value });
  }
  throw new UsageError(`unknown command "${[noun, verb].filter(Boolean).join(' ')}"`);
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

if (positionals[0] === 'graphql' || positionals[0] === 'secret') {
  try {
    process.stdout.write(`${JSON.stringify(await runThroughPlatform(positionals), null, 2)}\n`);
    process.exit(EXIT.done);
  } catch (error) {
    const { code, message } = explain(error);
    fail(code, message);
  }
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  fail(EXIT.usage, error instanceof Error ? error.message : String(error));
}
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'trellis-cli' });

/** The platform's database: DATABASE_URL, a running platform's embedded server, or the data directory's, started now. */
async function openDatabase(): Promise<{ url: string; stop?: () => Promise<void> }> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const dataDir = path.join(config.dataDir, 'postgres');
  const running = await runningServer(dataDir);
  if (running && !running.orphaned) return { url: await embeddedUrl(dataDir, running) };
  const server = await startEmbeddedPostgres({ dataDir });
  return { url: server.url, stop: () => server.stop() };
}

let exitCode: number = EXIT.done;
let database: { url: string; stop?: () => Promise<void> } | undefined;
let db: ReturnType<typeof connectDatabase> | undefined;
try {
  database = await openDatabase();
  db = connectDatabase(database.url, { max: 2, applicationName: 'trellis-cli' });
  // The identity schema's migrations alone: the subgraph module would load its GraphQL layer (type-graphql, Apollo's
  // subgraph library), about 0.2 s of every command's start, for nothing a command uses.
  await migrateSchema(db.root, 'identity', identityMigrations);
  const store = db.forSchema<IdentityDatabase>('identity') as Kysely<IdentityDatabase>;
  // Changes to principals are notified in their transactions; like the platform's own mutations, a command that
  // changes one (key revoke, team add-member) returns once every running platform process has applied it.
  const followers = new Authenticator(store);
  const identity = new IdentityService(store, logger, (_userIds, seq) => followers.awaitFollowers(seq));
  const result = await run(identity, positionals);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  const explained = explain(error);
  exitCode = explained.code;
  process.stderr.write(`error: ${explained.message}\n`);
} finally {
  await db?.close();
  await database?.stop?.();
}
process.exit(exitCode);
