import type { NotificationListener } from '../../platform/events/index.js';
import type { Logger } from '../../platform/logger.js';

export interface ChangeFollowerOptions {
  listener: NotificationListener;
  /** Notified by every write, in the writing transaction (so at commit, and never for a write that rolled back). */
  channel: string;
  /** The safety net: re-read this often even without a notification (one lost while reconnecting, say). */
  pollMs: number;
  logger: Logger;
  /** Logged when a re-read nobody waits for fails. */
  failure: string;
}

/**
 * Keeps one process's in-memory copy of a table current with changes committed by any process: `read` runs when a
 * notification arrives on the channel, every `pollMs`, and when asked to (after this process's own writes). The
 * notification is a wake-up only; the table is the truth.
 *
 * Reads run one after another, so a read requested after a write always starts after it; requests that arrive while
 * a read is waiting its turn share that read (it has not started, so it sees their writes too), so a burst of
 * notifications from many processes costs at most two reads.
 */
export class ChangeFollower {
  private running: Promise<void> = Promise.resolve();
  private waiting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly read: () => Promise<void>,
    private readonly options: ChangeFollowerOptions,
  ) {}

  /** Listens before the first read: a change committed between the two is then read either way. */
  async start(): Promise<void> {
    this.unlisten = await this.options.listener.listen(this.options.channel, () => this.refreshInBackground());
    await this.refresh();
    this.timer = setInterval(() => this.refreshInBackground(), this.options.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unlisten?.();
    this.unlisten = undefined;
  }

  refresh(): Promise<void> {
    if (this.waiting) return this.waiting;
    const next = this.running.then(() => {
      this.waiting = undefined;
      return this.read();
    });
    this.waiting = next;
    this.running = next.catch(() => undefined);
    return next;
  }

  private refreshInBackground(): void {
    this.refresh().catch((error) => this.options.logger.warn({ err: error }, this.options.failure));
  }
}
