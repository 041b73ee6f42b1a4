import 'reflect-metadata';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { loadConfig } from '../platform/config.js';
import { connectDatabase } from '../platform/db/connection.js';
import { embeddedUrl, runningServer, startEmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { TrellisError } from '../platform/errors.js';
import { createLogger } from '../platform/logger.js';
import type { TeamRole } from '../platform/auth/principal.js';
import type { IdentityDatabase } from '../subgraphs/identity/db/database.js';
import { identitySubgraph } from '../subgraphs/identity/index.js';
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

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    admin: { type: 'boolean', default: false },
    owner: { type: 'string' },
    role: { type: 'string', default: 'MEMBER' },
    name: { type: 'string', default: 'cli' },
    variables: { type: 'string' },
  },
});

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
      if (!owner) throw new UsageError(`user "${values.owner}" does not exist`);
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
      if (!user) throw new UsageError(`user "${args[0]}" does not exist`);
      const { key, apiKey } = await identity.createApiKey(user.id, values.name ?? 'cli');
      return { key, id: apiKey.id, name: apiKey.name, note: 'store the key now: it cannot be shown again' };
    }
    case 'key list': {
      const user = await identity.userByUsername(need(0, 'username'));
      if (!user) throw new UsageError(`user "${args[0]}" does not exist`);
      return identity.apiKeysOfUser(user.id);
    }
    case 'key revoke':
      return identity.revokeApiKey(OPERATOR, need(0, 'key id'));
    default:
      throw new UsageError(`unknown command "${[noun, verb].filter(Boolean).join(' ')}"`);
  }
}

class UsageError extends Error {}

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
    process.exit(0);
  } catch (error) {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n${error instanceof UsageError ? `${USAGE}\n` : ''}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
}

const config = loadConfig();
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'trellis-cli' });
let stopEmbedded: (() => Promise<void>) | undefined;
let url = config.databaseUrl;
if (!url) {
  const dataDir = path.join(config.dataDir, 'postgres');
  const running = await runningServer(dataDir);
  if (running && !running.orphaned) {
    url = await embeddedUrl(dataDir, running);
  } else {
    const server = await startEmbeddedPostgres({ dataDir });
    url = server.url;
    stopEmbedded = () => server.stop();
  }
}
const db = connectDatabase(url, { max: 2, applicationName: 'trellis-cli' });
let exitCode = 0;
try {
  await identitySubgraph.migrate(db);
  const store = db.forSchema<IdentityDatabase>('identity') as Kysely<IdentityDatabase>;
  // Changes to principals are notified in their transactions: running platforms drop cached principals at commit.
  const identity = new IdentityService(store, logger);
  const result = await run(identity, positionals);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} catch (error) {
  exitCode = error instanceof UsageError ? 2 : 1;
  const message = error instanceof UsageError || error instanceof TrellisError ? error.message : String(error);
  process.stderr.write(`error: ${message}\n${error instanceof UsageError ? `${USAGE}\n` : ''}`);
} finally {
  await db.close();
  await stopEmbedded?.();
}
process.exit(exitCode);
