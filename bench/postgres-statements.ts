import path from 'node:path';
import pg from 'pg';
import { embeddedUrl, runningServer } from '../platform/db/embedded-postgres.js';

/**
 * What Trellis' embedded PostgreSQL executes per request, from pg_stat_statements (`bench/inference.ts
 * --postgres-statements`). Trellis is started with the extension preloaded (POSTGRES_STATEMENT_SETTINGS as its
 * TRELLIS_POSTGRES_SETTINGS); the bench reads the figures as the cluster's superuser (embeddedUrl).
 */
export const POSTGRES_STATEMENT_SETTINGS =
  'shared_preload_libraries=pg_stat_statements pg_stat_statements.track=all pg_stat_statements.track_planning=on';

/** The superuser's URL of the embedded server of the running Trellis whose TRELLIS_DATA_DIR is `dataDir`. */
export async function embeddedSuperuserUrl(dataDir: string): Promise<string> {
  return clusterSuperuserUrl(path.join(dataDir, 'postgres'));
}

/** The superuser's URL of the running embedded server whose cluster directory is `clusterDir`. */
export async function clusterSuperuserUrl(clusterDir: string): Promise<string> {
  const running = await runningServer(clusterDir);
  if (!running) throw new Error(`no embedded PostgreSQL is running on ${clusterDir}`);
  return embeddedUrl(clusterDir, running, 'superuser');
}

export interface StatementFigures {
  statement: string;
  callsPerThousandRequests: number;
  execUsPerRequest: number;
  planUsPerRequest: number;
  rowsPerCall: number;
  walBytesPerRequest: number;
}

export class PostgresStatements {
  private constructor(private readonly client: pg.Client) {}

  /** Connects to the embedded server of the Trellis whose TRELLIS_DATA_DIR is `dataDir`. */
  static async connect(dataDir: string): Promise<PostgresStatements> {
    return PostgresStatements.connectCluster(path.join(dataDir, 'postgres'));
  }

  /** Connects to the running embedded server whose cluster directory is `clusterDir` (one a bench started itself). */
  static async connectCluster(clusterDir: string): Promise<PostgresStatements> {
    const client = new pg.Client({ connectionString: await clusterSuperuserUrl(clusterDir) });
    await client.connect();
    await client.query('create extension if not exists pg_stat_statements');
    return new PostgresStatements(client);
  }

  async reset(): Promise<void> {
    await this.client.query('select pg_stat_statements_reset()');
  }

  /** The `top` statements by execution plus planning time since the reset, and all of them together, per request. */
  async read(requests: number, top = 6): Promise<{ top: StatementFigures[]; total: StatementFigures }> {
    const { rows } = await this.client.query<{ query: string; calls: string; exec_ms: number; plan_ms: number; rows: string; wal_bytes: string }>(
      `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls, total_exec_time as exec_ms, total_plan_time as plan_ms, rows, wal_bytes
       from pg_stat_statements where query not like '%pg_stat_statements%' order by total_exec_time + total_plan_time desc`,
    );
    const figures = (statement: string, calls: number, execMs: number, planMs: number, rowCount: number, wal: number): StatementFigures => ({
      statement,
      callsPerThousandRequests: (calls * 1000) / requests,
      execUsPerRequest: (execMs * 1000) / requests,
      planUsPerRequest: (planMs * 1000) / requests,
      rowsPerCall: calls > 0 ? rowCount / calls : 0,
      walBytesPerRequest: wal / requests,
    });
    const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((total, row) => total + pick(row), 0);
    return {
      top: rows.slice(0, top).map((row) => figures(row.query, Number(row.calls), row.exec_ms, row.plan_ms, Number(row.rows), Number(row.wal_bytes))),
      total: figures('all statements', sum((row) => Number(row.calls)), sum((row) => row.exec_ms), sum((row) => row.plan_ms), sum((row) => Number(row.rows)), sum((row) => Number(row.wal_bytes))),
    };
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/**
 * A markdown table of each measured cell's statements. `per` names what the figures were divided by (`read`'s
 * `requests`): a request, or e.g. an ingested call; `measured` says over what the statistics were kept.
 */
export function printStatements(
  measured: { cell: string; figures: { top: StatementFigures[]; total: StatementFigures } }[],
  per: { unit: string; short: string; measured: string } = { unit: 'request', short: 'req', measured: 'reset before each Trellis cell; warm-up included' },
): void {
  if (measured.length === 0) return;
  const fixed = (value: number, digits = 1) => value.toFixed(digits);
  const { unit, short } = per;
  process.stdout.write(
    `\nPostgreSQL statements per ${unit} (pg_stat_statements, ${per.measured}):\n\n` +
      `| cell | statement | calls / 1000 ${short} | exec µs/${short} | plan µs/${short} | rows/call | WAL bytes/${short} |\n|---|---|---|---|---|---|---|\n`,
  );
  for (const { cell, figures } of measured) {
    for (const row of [...figures.top, figures.total]) {
      const statement = row.statement.length > 90 ? `${row.statement.slice(0, 90)}…` : row.statement;
      process.stdout.write(
        `| ${cell} | \`${statement.replace(/\|/g, '\\|')}\` | ${fixed(row.callsPerThousandRequests)} | ${fixed(row.execUsPerRequest)} | ` +
          `${fixed(row.planUsPerRequest)} | ${fixed(row.rowsPerCall)} | ${fixed(row.walBytesPerRequest, 0)} |\n`,
      );
    }
  }
}
