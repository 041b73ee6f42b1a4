import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { trackPool } from './connection-budget.js';

// BIGINT and NUMERIC arrive as strings by default; counts and ids we store fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/**
 * One pool per process, shared by every subgraph that runs in it. Each subgraph gets its own Kysely handle
 * bound to its Postgres schema (`withSchema`), so its queries cannot name another subgraph's tables by accident.
 */
export interface DatabaseConnection {
  pool: pg.Pool;
  /** Unbound query builder, for platform-level work (schema creation, locks). */
  root: Kysely<any>;
  /** A query builder whose unqualified table names resolve in `schema`. */
  forSchema<DB>(schema: string): Kysely<DB>;
  close(): Promise<void>;
}

export function connectDatabase(url: string, options: { max?: number; applicationName?: string } = {}): DatabaseConnection {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'trellis',
    idleTimeoutMillis: 30_000,
  });
  // A client that loses its server (restart, network) must not crash the process: idle clients report it on the
  // pool, checked-out ones on themselves (their query in flight fails with the error anyway).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  trackPool(pool);
  const root = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    pool,
    root,
    forSchema<DB>(schema: string) {
      return root.withSchema(schema) as unknown as Kysely<DB>;
    },
    async close() {
      if (closed) return;
      closed = true;
      await root.destroy();
    },
  };
}

/** Creates a database on a server (used by tests, one database per test file). */
export async function createDatabase(serverUrl: string, name: string, options: { template?: string } = {}): Promise<string> {
  for (const identifier of [name, options.template ?? name]) {
    if (!/^[a-z_][a-z0-9_]*$/.test(identifier)) throw new Error(`invalid database name ${identifier}`);
  }
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(options.template ? `CREATE DATABASE ${name} TEMPLATE ${options.template}` : `CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
