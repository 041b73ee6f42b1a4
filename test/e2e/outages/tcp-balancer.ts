import net from 'node:net';

/**
 * A TCP load balancer in front of replicas on loopback, as an nginx `stream` or HAProxy TCP front end behaves with
 * default settings: each new client connection goes to the next replica in turn, a replica that refuses the
 * connection is passed over for the next one, and when none accepts the client connection is reset. Bytes are
 * relayed as they are (a count is kept of 503 answers); a connection closed on one side is closed on the other.
 */
export class TcpBalancer {
  private readonly server = net.createServer((client) => this.relay(client));
  private readonly open = new Set<net.Socket>();
  private next = 0;
  /** HTTP responses with status 503 relayed from a replica to a client (what a test can see of a drain). */
  relayed503 = 0;

  constructor(private readonly ports: number[]) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket): void {
    this.track(client);
    client.pause();
    const first = this.next++ % this.ports.length;
    const tryReplica = (tried: number) => {
      if (tried === this.ports.length) {
        client.resetAndDestroy();
        return;
      }
      const upstream = net.connect(this.ports[(first + tried) % this.ports.length]!, '127.0.0.1');
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
