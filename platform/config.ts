import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OperationLimits } from './graphql/operation-limits.js';
import { DEFAULT_JSON_MAX_DEPTH } from './storable-input.js';

/**
 * The one validated configuration module of the platform: every environment variable the processes read is
 * parsed here, so a typo fails at start-up with a message instead of misbehaving later.
 */
export interface PlatformConfig {
  host: string;
  port: number;
  /** External PostgreSQL; when absent an embedded server is started under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * The embedded PostgreSQL's own settings, `name=value` (TRELLIS_POSTGRES_SETTINGS, separated by spaces: e.g.
   * `shared_buffers=512MB work_mem=16MB`), on top of what the platform sets. Unused with DATABASE_URL.
   */
  postgresSettings: string[];
  logLevel: string;
  bodyLimitBytes: number;
  /** Deepest nesting of objects and arrays accepted in JSON input (REST bodies, GraphQL variables and literals). */
  jsonMaxDepth: number;
  /** Body limit of requests without a valid credential (anonymous /graphql), so anonymous clients cannot push big bodies. */
  anonymousBodyLimitBytes: number;
  /** Time a client has to send a whole request, headers and body (Node's requestTimeout; responses are not limited). */
  requestTimeoutMs: number;
  /** Time a client has to send the request headers (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** Graceful shutdown waits this long for in-flight requests, then closes the connections still open. */
  shutdownTimeoutMs: number;
  /**
   * Graceful shutdown's leave phase: how long the process keeps serving after SIGTERM with `/readyz` failing and
   * every response closing its connection, before it stops listening (long enough for balancers to notice).
   */
  shutdownDelayMs: number;
  /** What one GraphQL operation may ask for, on /graphql and /graphql/ws alike. */
  graphqlLimits: OperationLimits;
  bootstrap: { apiKey: string; username: string; team: string; project: string } | undefined;
  /** Shared by gateway and subgraph processes to sign the caller's identity; generated into dataDir if unset. */
  internalSecret: string | undefined;
  /** Distributed topology: subgraph name → URL. Empty means every subgraph runs in-process. */
  subgraphUrls: Record<string, string>;
  /**
   * Distributed topology, subgraph services: the gateway's GraphQL URL (`http://gateway:8080/graphql`), through
   * which a subgraph reads other subgraphs' data on behalf of its caller (signed identity header).
   */
  gatewayUrl: string | undefined;
  databasePoolSize: number;
  /**
   * `npm start`: identical platform processes serving the one port (node:cluster), so requests use every core.
   * TRELLIS_PROCESSES, a number or `auto` (default): one per core, at most MAX_AUTO_PROCESSES.
   */
  processes: number;
  /**
   * HTTPS on the platform's port instead of plain HTTP: a certificate and key from files (TRELLIS_TLS_CERT_FILE and
   * TRELLIS_TLS_KEY_FILE), or a self-signed certificate generated once into `<dataDir>/tls/` for local use
   * (TRELLIS_TLS_SELF_SIGNED=true), which clients trust through NODE_EXTRA_CA_CERTS / SSL_CERT_FILE.
   */
  tls: TlsSetting | undefined;
  /**
   * Deletion of what is past its retention (traces, usage records, platform events): the schedule every retention
   * worker follows, and how long platform events are kept (TRELLIS_EVENT_RETENTION_DAYS; unset: forever, except
   * the events pruned once consumed). Trace and usage retention are their subgraphs' settings.
   */
  retention: RetentionSchedule & { eventDays: number | undefined };
  /**
   * The environment this configuration was read from. Settings that belong to one subgraph are parsed by that
   * subgraph's own config module from here (e.g. subgraphs/automations/config.ts), so tests and processes that
   * pass an explicit environment configure subgraphs the same way.
   */
  env: Readonly<Record<string, string | undefined>>;
}

/** How every retention worker (platform/db/retention-worker.ts) deletes: how often, how much at once, how long it pauses. */
export interface RetentionSchedule {
  /** A sweep starts this long after the previous one ended (and this long after start-up). */
  intervalMs: number;
  /** Most rows (or traces) one statement deletes. */
  batchSize: number;
  /** Pause between two batches, so deletion never holds the database for long. */
  pauseMs: number;
}

export type TlsSetting = { kind: 'files'; certFile: string; keyFile: string } | { kind: 'self-signed' };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Settings that hold secrets, which may instead be given as a file (`<NAME>_FILE`: a Docker or Kubernetes secret
 * mounted as a file) so the value never sits in the process environment of an orchestrator's spec.
 */
export const SECRET_SETTINGS = ['DATABASE_URL', 'TRELLIS_INTERNAL_SECRET', 'TRELLIS_SECRET_KEY', 'TRELLIS_BOOTSTRAP_API_KEY'] as const;

/** The environment with every `<NAME>_FILE` of SECRET_SETTINGS read into `<NAME>` (one trailing newline dropped). */
export function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const resolved = { ...env };
  for (const name of SECRET_SETTINGS) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]) throw new ConfigError(`${name} and ${name}_FILE are both set: give the value one way`);
    try {
      resolved[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new ConfigError(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    if (!resolved[name]) throw new ConfigError(`${name}_FILE: ${file} is empty`);
  }
  return resolved;
}

export function loadConfig(given: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const env = withSecretFiles(given);
  const bootstrapKey = env.TRELLIS_BOOTSTRAP_API_KEY?.trim();
  if (bootstrapKey !== undefined && bootstrapKey !== '' && bootstrapKey.length < 20) {
    throw new ConfigError('TRELLIS_BOOTSTRAP_API_KEY must be at least 20 characters long');
  }
  return {
    host: env.HOST ?? '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    databaseUrl: databaseUrl(env.DATABASE_URL),
    dataDir: path.resolve(env.TRELLIS_DATA_DIR ?? './data'),
    postgresSettings: postgresSettings(env.TRELLIS_POSTGRES_SETTINGS),
    logLevel: env.LOG_LEVEL ?? 'info',
    bodyLimitBytes: integer(env, 'TRELLIS_BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    jsonMaxDepth: integer(env, 'TRELLIS_JSON_MAX_DEPTH', DEFAULT_JSON_MAX_DEPTH, 8, 1000),
    anonymousBodyLimitBytes: integer(env, 'TRELLIS_ANONYMOUS_BODY_LIMIT_BYTES', 64 * 1024, 1024, 1024 * 1024 * 1024),
    ...requestTimeouts(env),
    shutdownTimeoutMs: integer(env, 'TRELLIS_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 3_600_000),
    shutdownDelayMs: integer(env, 'TRELLIS_SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    graphqlLimits: {
      maxDepth: integer(env, 'TRELLIS_GRAPHQL_MAX_DEPTH', 12, 2, 100),
      maxCost: integer(env, 'TRELLIS_GRAPHQL_MAX_COST', 5000, 10, 1_000_000),
      maxAliases: integer(env, 'TRELLIS_GRAPHQL_MAX_ALIASES', 50, 0, 10_000),
      maxTokens: integer(env, 'TRELLIS_GRAPHQL_MAX_TOKENS', 20_000, 100, 1_000_000),
    },
    bootstrap: bootstrapKey
      ? {
          apiKey: bootstrapKey,
          username: env.TRELLIS_BOOTSTRAP_USER ?? 'admin',
          team: env.TRELLIS_BOOTSTRAP_TEAM ?? 'trellis',
          project: env.TRELLIS_BOOTSTRAP_PROJECT ?? 'default',
        }
      : undefined,
    internalSecret: env.TRELLIS_INTERNAL_SECRET || undefined,
    subgraphUrls: parseSubgraphUrls(env.TRELLIS_SUBGRAPH_URLS),
    gatewayUrl: gatewayUrl(env.TRELLIS_GATEWAY_URL),
    databasePoolSize: integer(env, 'TRELLIS_DB_POOL_SIZE', 20, 1, 500),
    processes: processCount(env),
    tls: tlsSetting(env),
    retention: {
      intervalMs: integer(env, 'TRELLIS_RETENTION_INTERVAL_MS', 60_000, 100, 86_400_000),
      batchSize: integer(env, 'TRELLIS_RETENTION_BATCH_SIZE', 1_000, 1, 100_000),
      pauseMs: integer(env, 'TRELLIS_RETENTION_PAUSE_MS', 50, 0, 60_000),
      eventDays: retentionDays(env, 'TRELLIS_EVENT_RETENTION_DAYS'),
    },
    env: { ...env },
  };
}

/**
 * `auto` stops at four: each process holds its own pools (≈ 37 connections as configured by default) against
 * PostgreSQL's max_connections of 300 (embedded), and its own copy of the in-memory caches and model runtime.
 */
export const MAX_AUTO_PROCESSES = 4;

function processCount(env: NodeJS.ProcessEnv): number {
  const raw = env.TRELLIS_PROCESSES?.trim();
  if (raw === undefined || raw === '' || raw === 'auto') return Math.max(1, Math.min(os.availableParallelism(), MAX_AUTO_PROCESSES));
  return integer(env, 'TRELLIS_PROCESSES', 1, 1, 64);
}

export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** Longest retention a setting accepts (a century): anything longer is a typo, not a policy. */
export const MAX_RETENTION_DAYS = 36_500;

/** A retention in whole days from the environment (1 to MAX_RETENTION_DAYS); unset or empty: keep forever. */
export function retentionDays(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return integer(env, name, 0, 1, MAX_RETENTION_DAYS);
}

function requestTimeouts(env: NodeJS.ProcessEnv): { requestTimeoutMs: number; headersTimeoutMs: number } {
  const requestTimeoutMs = integer(env, 'TRELLIS_REQUEST_TIMEOUT_MS', 300_000, 1_000, 3_600_000);
  const headersTimeoutMs = integer(env, 'TRELLIS_HEADERS_TIMEOUT_MS', Math.min(60_000, requestTimeoutMs), 1_000, 3_600_000);
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`TRELLIS_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed TRELLIS_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  return { requestTimeoutMs, headersTimeoutMs };
}

/** A PostgreSQL connection URL, checked here: pg reads anything else as a host name and fails much later, obscurely. */
function databaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL must be a PostgreSQL URL such as postgres://user:password@host:5432/database, got something that is not a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`DATABASE_URL must be a postgres:// (or postgresql://) URL, got a ${url.protocol}// one`);
  }
  return raw;
}

function tlsSetting(env: NodeJS.ProcessEnv): TlsSetting | undefined {
  const certFile = env.TRELLIS_TLS_CERT_FILE?.trim() || undefined;
  const keyFile = env.TRELLIS_TLS_KEY_FILE?.trim() || undefined;
  const selfSigned = env.TRELLIS_TLS_SELF_SIGNED?.trim().toLowerCase();
  if (selfSigned !== undefined && selfSigned !== '' && !['true', 'false', '1', '0'].includes(selfSigned)) {
    throw new ConfigError(`TRELLIS_TLS_SELF_SIGNED must be true or false, got "${env.TRELLIS_TLS_SELF_SIGNED}"`);
  }
  const wantsSelfSigned = selfSigned === 'true' || selfSigned === '1';
  if (certFile || keyFile) {
    if (!certFile || !keyFile) throw new ConfigError('TRELLIS_TLS_CERT_FILE and TRELLIS_TLS_KEY_FILE go together: set both or neither');
    if (wantsSelfSigned) throw new ConfigError('TRELLIS_TLS_SELF_SIGNED cannot be combined with TRELLIS_TLS_CERT_FILE/TRELLIS_TLS_KEY_FILE');
    return { kind: 'files', certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) };
  }
  return wantsSelfSigned ? { kind: 'self-signed' } : undefined;
}

/** `name=value` pairs separated by whitespace; a value cannot hold spaces (PostgreSQL's `-c` takes one argument). */
function postgresSettings(raw: string | undefined): string[] {
  const settings = (raw ?? '').split(/\s+/).filter(Boolean);
  const invalid = settings.find((setting) => !/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?=\S+$/i.test(setting));
  if (invalid !== undefined) throw new ConfigError(`TRELLIS_POSTGRES_SETTINGS takes name=value pairs separated by spaces, got "${invalid}"`);
  return settings;
}

function gatewayUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^https?:\/\//.test(raw)) throw new ConfigError(`TRELLIS_GATEWAY_URL must be an http(s) URL, got "${raw}"`);
  return raw;
}

/** `identity=http://127.0.0.1:4001/graphql,tracing=http://...` */
function parseSubgraphUrls(raw: string | undefined): Record<string, string> {
  const urls: Record<string, string> = {};
  if (!raw) return urls;
  for (const entry of raw.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [name, url] = entry.split('=');
    if (!name || !url || !/^https?:\/\//.test(url)) {
      throw new ConfigError(`TRELLIS_SUBGRAPH_URLS entry "${entry}" must look like name=http://host:port/graphql`);
    }
    urls[name.trim()] = url.trim();
  }
  return urls;
}
