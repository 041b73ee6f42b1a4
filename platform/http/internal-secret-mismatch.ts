import { GraphQLError } from 'graphql';
import { InvalidInternalSignatureError, signPrincipal, verifyPrincipal } from '../auth/internal-signature.js';
import type { Principal } from '../auth/principal.js';
import type { Logger } from '../logger.js';
import { ReadinessFailure, type ReadinessCheck } from './readiness.js';

/**
 * A gateway and subgraph services configured with different `TRELLIS_INTERNAL_SECRET`s: every request the gateway
 * signs for its callers is refused by the services. Answered UNAUTHENTICATED like any unsigned request, it looked
 * exactly like a bad API key to every client and was logged nowhere. So both sides name it:
 * - the service answers a header signed with another secret with the GraphQL error UNAVAILABLE and the extension
 *   `reason: INTERNAL_SECRET_MISMATCH` (the gateway's clients see an outage, not a bad key), and logs it;
 * - the gateway probes its services with a signed request (`SubgraphProbes`): its `/readyz` fails naming the
 *   mismatch, and it logs an error saying which service refuses its secret.
 * Both log at most once per interval, not once per request.
 */
export const INTERNAL_SECRET_MISMATCH = 'INTERNAL_SECRET_MISMATCH';

/** At most one log line per interval about the same misconfiguration (per service). */
const LOG_INTERVAL_MS = 60_000;

/** Calls `log` at most once per `intervalMs` for the same key. */
export class OncePerInterval {
  private readonly lastAt = new Map<string, number>();
  constructor(private readonly intervalMs = LOG_INTERVAL_MS) {}

  run(key: string, log: () => void, now = Date.now()): void {
    const last = this.lastAt.get(key);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.lastAt.set(key, now);
    log();
  }
}

/**
 * A subgraph service's check of the gateway's signed identity header: the caller's principal, or the GraphQL error
 * to answer with — UNAVAILABLE + INTERNAL_SECRET_MISMATCH when the header is signed with another secret (logged,
 * once per interval), UNAUTHENTICATED when it is missing or stale.
 */
export function internalCallerVerifier(secret: string, logger: Logger, service: string): (headers: Record<string, string | string[] | undefined>) => Principal | null {
  const logs = new OncePerInterval();
  return (headers) => {
    try {
      return verifyPrincipal(headers, secret);
    } catch (error) {
      if (error instanceof InvalidInternalSignatureError && error.reason === 'bad-signature') {
        logs.run('mismatch', () =>
          logger.error(
            { service, code: INTERNAL_SECRET_MISMATCH },
            `refused a request signed with another internal secret: the gateway's TRELLIS_INTERNAL_SECRET differs from this ${service} service's, so every request it forwards fails`,
          ),
        );
        return throwMismatch(service);
      }
      throw new GraphQLError((error as Error).message, { extensions: { code: 'UNAUTHENTICATED', status: 401, http: { status: 401 } } });
    }
  };
}

/**
 * HTTP 503 with the GraphQL error in its body: the gateway turns a service's 503 into UNAVAILABLE for its clients
 * (gateway/signed-data-source.ts; a 401 became UNAUTHENTICATED) and does not retry it (it has a GraphQL body), while
 * its probe reads the reason from the body.
 */
function throwMismatch(service: string): never {
  throw new GraphQLError(`The platform is misconfigured: the ${service} service does not accept the gateway's internal secret`, {
    extensions: { code: 'UNAVAILABLE', status: 503, reason: INTERNAL_SECRET_MISMATCH, http: { status: 503 } },
  });
}

export interface SubgraphProbeOptions {
  /** The subgraph services' GraphQL URLs, by subgraph name (TRELLIS_SUBGRAPH_URLS). */
  urls: Record<string, string>;
  internalSecret: string;
  logger: Logger;
  /** How often to probe in the background, so a mismatch is logged with nobody asking `/readyz` (default 30 s). */
  intervalMs?: number;
  /** Per probe (default 2 s). */
  timeoutMs?: number;
}

/**
 * The gateway's view of its subgraph services: each probed with `{ __typename }` signed with the gateway's secret.
 * One readiness check per service (`subgraph <name>`): it fails when the service is unreachable, answers anything
 * but the query's data, or refuses the secret (code INTERNAL_SECRET_MISMATCH, logged as an error once per interval).
 */
export class SubgraphProbes {
  private readonly logs = new OncePerInterval();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SubgraphProbeOptions) {}

  checks(): ReadinessCheck[] {
    return Object.entries(this.options.urls).map(([name, url]) => ({ name: `subgraph ${name}`, check: () => this.probe(name, url) }));
  }

  /** Probes now and every interval; failures other than a mismatch are left to `/readyz` (start-up order, restarts). */
  start(): void {
    const probeAll = () => {
      for (const check of this.checks()) check.check().catch(() => undefined);
    };
    probeAll();
    this.timer = setInterval(probeAll, this.options.intervalMs ?? 30_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async probe(name: string, url: string): Promise<void> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signPrincipal(null, this.options.internalSecret) },
        body: JSON.stringify({ query: '{ __typename }' }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 2_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ReadinessFailure(`the ${name} service is unreachable at ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, 'SUBGRAPH_UNREACHABLE');
    }
    const body = (await response.json().catch(() => undefined)) as { data?: { __typename?: string }; errors?: { extensions?: { reason?: string } }[] } | undefined;
    if (body?.errors?.some((error) => error.extensions?.reason === INTERNAL_SECRET_MISMATCH)) {
      const message = `the ${name} service refuses this gateway's internal secret: TRELLIS_INTERNAL_SECRET differs between the gateway and the service`;
      this.logs.run(name, () => this.options.logger.error({ subgraph: name, url, code: INTERNAL_SECRET_MISMATCH }, `${message}; every request it forwards there fails`));
      throw new ReadinessFailure(message, INTERNAL_SECRET_MISMATCH);
    }
    if (response.status !== 200 || body?.data?.__typename === undefined) {
      throw new ReadinessFailure(`the ${name} service answered HTTP ${response.status}`, 'SUBGRAPH_NOT_READY');
    }
  }
}
