import { Pool } from 'undici';

/**
 * One upstream server of a model: its own connection pool (undici keeps connections alive and pipelines
 * nothing), the credential sent to it, and the bookkeeping the balancer reads: requests in flight and the time
 * until which the deployment is cooling down after a failure.
 */
export interface DeploymentSettings {
  /** Label used in usage records and logs; never the credential. */
  label: string;
  /** Base URL as OpenAI clients take it, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  apiKey: string | undefined;
  /** Model name sent upstream. */
  upstreamModel: string;
  timeoutMs: number;
  connections: number;
}

export class Deployment {
  readonly label: string;
  readonly upstreamModel: string;
  readonly timeoutMs: number;
  readonly completionsPath: string;
  readonly embeddingsPath: string;
  readonly pool: Pool;
  readonly headers: Record<string, string>;
  inFlight = 0;
  coolingUntil = 0;

  constructor(settings: DeploymentSettings) {
    const url = new URL(settings.baseUrl);
    this.label = settings.label;
    this.upstreamModel = settings.upstreamModel;
    this.timeoutMs = settings.timeoutMs;
    this.completionsPath = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    this.embeddingsPath = `${url.pathname.replace(/\/+$/, '')}/embeddings`;
    this.pool = new Pool(url.origin, {
      connections: settings.connections,
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
      keepAliveTimeout: 30_000,
    });
    this.headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    };
  }

  isCooling(now: number): boolean {
    return this.coolingUntil > now;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * The order in which a request tries deployments: healthy ones first, least busy first (ties rotate, so equal
 * deployments share the load), then cooling ones, soonest-recovered first, as a last resort rather than failing
 * while a deployment might have recovered.
 */
export class DeploymentBalancer {
  private turn = 0;

  constructor(
    readonly deployments: readonly Deployment[],
    private readonly cooldownMs: number,
  ) {}

  order(now = Date.now()): Deployment[] {
    const count = this.deployments.length;
    if (count === 1) return [this.deployments[0]!];
    const start = this.turn++ % count;
    const rotated = [...this.deployments.slice(start), ...this.deployments.slice(0, start)];
    const healthy = rotated.filter((deployment) => !deployment.isCooling(now));
    const cooling = rotated.filter((deployment) => deployment.isCooling(now));
    // Array.prototype.sort is stable: among equally busy deployments the rotation decides.
    healthy.sort((a, b) => a.inFlight - b.inFlight);
    cooling.sort((a, b) => a.coolingUntil - b.coolingUntil);
    return [...healthy, ...cooling];
  }

  markFailed(deployment: Deployment, now = Date.now()): void {
    deployment.coolingUntil = now + this.cooldownMs;
  }

  markHealthy(deployment: Deployment): void {
    deployment.coolingUntil = 0;
  }
}
