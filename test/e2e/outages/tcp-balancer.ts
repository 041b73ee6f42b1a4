import net from 'node:net';

/** A replica's health check: an HTTP GET of `path` every `intervalMs`, passed by a 2xx answer. */
export interface HealthCheck {
  path: string;
  intervalMs: number;
}

/**
 * A TCP load balancer in front of replicas on loopback, as an nginx `stream` or HAProxy TCP front end behaves with
 * default settings: each new client connection goes to the next replica in turn, a replica that refuses the
 * connection is passed over for the next one, and when none accepts the client connection is reset. Bytes are
 * relayed as they are (a count is kept of 503 answers); a connection closed on one side is closed on the other.
 *
 * With `healthCheck`, as HAProxy's `check` (`option httpchk GET /readyz`, `fall 1`): each replica's path is polled
 * every `intervalMs`, and new connections go to the replicas whose last answer was 2xx, in turn; a replica that
 * failed its check is chosen only when none passes (HAProxy would answer 503 itself then). Connections already
 * relayed stay where they are: a replica leaving moves its clients by closing their connections.
 */
export class TcpBalancer {
  private readonly server = net.createServer((client) => this.relay(client));
  private readonly open = new Set<net.Socket>();
  private next = 0;
  private readonly healthy: boolean[];
  private checking = false;
  private checks: Promise<void>[] = [];
  /** HTTP responses with status 503 relayed from a replica to a client (what a test can see of a drain). */
  relayed503 = 0;

  constructor(
    private readonly ports: number[],
    private readonly healthCheck?: HealthCheck,
  ) {
    this.healthy = ports.map(() => !healthCheck);
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    if (this.healthCheck) {
      this.checking = true;
      this.checks = this.ports.map((_, index) => this.checkLoop(index, this.healthCheck!));
    }
    return (this.server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    this.checking = false;
    await Promise.all(this.checks);
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Whether replica `index` (of the ports given) passed its last health check. */
  isHealthy(index: number): boolean {
    return this.healthy[index]!;
  }

  private async checkLoop(index: number, { path, intervalMs }: HealthCheck): Promise<void> {
    while (this.checking) {
      try {
        const response = await fetch(`http://127.0.0.1:${this.ports[index]}${path}`, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        this.healthy[index] = response.ok;
      } catch {
        this.healthy[index] = false;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  /** The replicas to try for a new connection, in order: the healthy ones in turn, then the others. */
  private candidates(): number[] {
    const start = this.next++;
    const rotated = this.ports.map((_, offset) => (start + offset) % this.ports.length);
    return [...rotated.filter((index) => this.healthy[index]), ...rotated.filter((index) => !this.healthy[index])];
  }

  private relay(client: net.Socket): void {
    this.track(client);
    client.pause();
    const order = this.candidates();
    const tryReplica = (tried: number) => {
      if (tried === order.length) {
        client.resetAndDestroy();
        return;
      }
      const upstream = net.connect(this.ports[order[tried]!]!, '127.0.0.1');
      const refused = () => tryReplica(tried + 1);
      upstream.once('error', refused);
      upstream.once('connect', () => {
        upstream.off('error', refused);
        this.track(upstream);
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        // A clean close is passed on once what was relayed is written; a broken one breaks the other side.
        upstream.once('close', (hadError) => (hadError ? client.destroy() : client.end()));
        client.once('close', (hadError) => (hadError ? upstream.destroy() : upstream.end()));
        upstream.on('data', (chunk: Buffer) => {
          this.relayed503 += chunk.toString('latin1').split('HTTP/1.1 503 ').length - 1;
        });
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    tryReplica(0);
  }

  private track(socket: net.Socket): void {
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
  }
}
