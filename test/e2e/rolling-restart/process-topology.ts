import { randomBytes } from 'node:crypto';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { SUBGRAPHS } from '../../../subgraphs/index.js';
import { TEST_ENV } from '../../../subgraphs/automations/test/helpers.js';
import { ADMIN_KEY } from '../../support/platform.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { TcpBalancer } from '../outages/tcp-balancer.js';

/**
 * docker-compose.yml's topology as plain processes on loopback, every process replicated: two replicas of each
 * subgraph service behind a balancer of its own (the gateways' TRELLIS_SUBGRAPH_URLS name the balancers, as the
 * compose file names a service whose replicas Docker's DNS spreads), and two gateways behind the front balancer
 * (deploy/compose/haproxy.cfg's part). Every balancer checks its replicas' /readyz, as HAProxy does.
 */

/** How often the balancers check /readyz (HAProxy's `inter`). */
const CHECK_INTERVAL_MS = 200;
/**
 * A leaving process's leave phase (TRELLIS_SHUTDOWN_DELAY_MS): several check intervals, so every balancer has seen
 * its /readyz fail (a gateway's /readyz asks six services, and the machine is busy) before it stops listening.
 */
export const SHUTDOWN_DELAY_MS = 1_000;

/** One replica: a port of its own, and the process serving it now (replaced by `restart`). */
export class Replica {
  process!: NodeProcess;
  /** Every process this replica has had, for the output when something fails. */
  readonly generations: NodeProcess[] = [];

  constructor(
    readonly label: string,
    readonly port: number,
    private readonly entry: string,
    private readonly args: string[],
    private readonly env: Record<string, string>,
  ) {}

  start(): NodeProcess {
    this.process = spawnEntry(this.entry, this.args, { ...this.env, PORT: String(this.port) });
    this.generations.push(this.process);
    return this.process;
  }

  async ready(): Promise<void> {
    await waitForHttp(`http://127.0.0.1:${this.port}/readyz`, this.process, 120_000);
  }
}

/** A service's replicas and the balancer in front of them. */
export class ReplicatedService {
  balancerPort = 0;
  readonly balancer: TcpBalancer;

  constructor(
    readonly name: string,
    readonly replicas: Replica[],
  ) {
    this.balancer = new TcpBalancer(
      replicas.map((replica) => replica.port),
      { path: '/readyz', intervalMs: CHECK_INTERVAL_MS },
    );
  }

  async listen(): Promise<void> {
    this.balancerPort = await this.balancer.listen();
  }

  /** Until the balancer's own check has seen replica `index` ready (it then sends it new connections again). */
  async balancerSeesReady(index: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!this.balancer.isHealthy(index)) {
      if (Date.now() > deadline) throw new Error(`${this.replicas[index]!.label}: the balancer never saw it ready`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export interface ProcessTopology {
  /** The subgraph services, then the gateways: the order processes are restarted in. */
  services: ReplicatedService[];
  gateways: ReplicatedService;
  /** The front balancer's URL: what clients use. */
  url: string;
  close(): Promise<void>;
}

/** Ports for `count` replicas, none of them equal (freePort may hand the same port twice before it is bound). */
async function distinctPorts(count: number, taken: Set<number>): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (taken.has(port)) continue;
    taken.add(port);
    ports.push(port);
  }
  return ports;
}

export async function startProcessTopology(databaseUrl: string): Promise<ProcessTopology> {
  const secret = randomBytes(32).toString('hex');
  const common = {
    ...TEST_ENV,
    DATABASE_URL: databaseUrl,
    TRELLIS_INTERNAL_SECRET: secret,
    HOST: '127.0.0.1',
    TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY,
    TRELLIS_SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
  };
  const taken = new Set<number>();
  const gatewayPorts = await distinctPorts(2, taken);
  // TRELLIS_SUBGRAPH_URLS is added once the services' balancers listen (below), before a gateway starts.
  const gatewayEnv: Record<string, string> = { ...common };
  const gateways = new ReplicatedService(
    'gateway',
    gatewayPorts.map((port, index) => new Replica(`gateway-${index + 1}`, port, 'server/main.ts', [], gatewayEnv)),
  );
  // Listening first: training and automations reach the gateways through it (TRELLIS_GATEWAY_URL).
  await gateways.listen();
  const gatewayUrl = `http://127.0.0.1:${gateways.balancerPort}/graphql`;
  const services: ReplicatedService[] = [];
  for (const subgraph of SUBGRAPHS) {
    const ports = await distinctPorts(2, taken);
    const env = { ...common, ...(['training', 'automations'].includes(subgraph.name) ? { TRELLIS_GATEWAY_URL: gatewayUrl } : {}) };
    const service = new ReplicatedService(
      subgraph.name,
      ports.map((port, index) => new Replica(`${subgraph.name}-${index + 1}`, port, 'server/serve-subgraph.ts', [subgraph.name], env)),
    );
    await service.listen();
    services.push(service);
  }
  const close = async () => {
    const all = [...services, gateways];
    for (const service of all) for (const replica of service.replicas) replica.process?.kill('SIGKILL');
    await Promise.all(all.flatMap((service) => service.replicas.map((replica) => replica.process?.exited)));
    await Promise.all(all.map((service) => service.balancer.close()));
  };
  try {
    // One replica of each service first, then the second ones, so that no two migrate the same schema at once and
    // two cores are not asked to start twelve processes together.
    for (const index of [0, 1]) {
      const starting = services.map((service) => service.replicas[index]!);
      for (const replica of starting) replica.start();
      await Promise.all(starting.map((replica) => replica.ready()));
    }
    gatewayEnv.TRELLIS_SUBGRAPH_URLS = services.map((service) => `${service.name}=http://127.0.0.1:${service.balancerPort}/graphql`).join(',');
    for (const replica of gateways.replicas) replica.start();
    await Promise.all(gateways.replicas.map((replica) => replica.ready()));
    for (const service of [...services, gateways]) await Promise.all(service.replicas.map((_, index) => service.balancerSeesReady(index)));
  } catch (error) {
    await close();
    throw error;
  }
  return { services, gateways, url: `http://127.0.0.1:${gateways.balancerPort}`, close };
}
