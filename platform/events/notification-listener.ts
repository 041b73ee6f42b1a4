import pg from 'pg';
import type { Logger } from '../logger.js';

/** Called with the notification's payload ('' for plain wake-ups, and after a reconnect). */
type Wake = (payload: string) => void;

/**
 * One dedicated PostgreSQL connection that LISTENs on behalf of everything in the process (event subscribers,
 * delivery workers), instead of one connection per subscriber. Notifications are wake-up calls only: whoever is
 * woken re-reads its table, so a notification lost while reconnecting costs nothing but a re-read — which is
 * why every subscriber is woken after a reconnect.
 */
export class NotificationListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly handlers = new Map<string, Set<Wake>>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the channel is being listened to; from then on every commit that notifies it calls `wake`. */
  async listen(channel: string, wake: Wake): Promise<() => void> {
    let handlers = this.handlers.get(channel);
    const isNewChannel = !handlers;
    if (!handlers) {
      handlers = new Set();
      this.handlers.set(channel, handlers);
    }
    handlers.add(wake);
    await this.connect();
    if (isNewChannel) await this.client!.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return () => handlers!.delete(wake);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString, application_name: 'trellis-listener' });
      client.on('notification', (message) => this.wake(message.channel, message.payload ?? ''));
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client, new Error('connection ended')));
      try {
        await client.connect();
        for (const channel of this.handlers.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        this.client = client;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.logger.warn({ err: error }, 'notification listener lost its connection; reconnecting');
    const retry = (delay: number) => {
      this.retryTimer = setTimeout(() => {
        if (this.closed) return;
        this.connect().then(
          () => {
            for (const channel of this.handlers.keys()) this.wake(channel, '');
          },
          () => retry(Math.min(delay * 2, 5_000)),
        );
      }, delay);
    };
    retry(100);
  }

  private wake(channel: string, payload: string): void {
    for (const wake of this.handlers.get(channel) ?? []) wake(payload);
  }
}
