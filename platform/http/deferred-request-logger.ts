import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';
import type { Logger } from '../logger.js';

/**
 * A request's logger (Fastify's `request.log`) that becomes a pino child of the platform's logger — bound to the
 * request id — only when something logs through it. Most requests log nothing, and a pino child is not free: with
 * redaction configured, every child re-binds a function per level and serializes its bindings, ≈ 6 % of all the
 * memory a chat completion allocates (sampled under load), and it stays alive for the whole request, so every
 * scavenge of the requests in flight copies it. Installed with Fastify's `childLoggerFactory`.
 */
export class DeferredRequestLogger {
  #child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: Bindings,
    private readonly childOptions: ChildLoggerOptions,
  ) {}

  /** The pino child, made on first use. */
  private get logger(): Logger {
    return (this.#child ??= this.parent.child(this.childBindings, this.childOptions));
  }

  /** What is asked of a disabled level costs one check, no child. */
  private enabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (!this.enabled(level)) return;
    const logger = this.logger;
    (logger[level] as (...values: unknown[]) => void).apply(logger, args);
  }

  isLevelEnabled(level: string): boolean {
    return this.enabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options);
  }

  bindings(): Bindings {
    return this.#child ? this.#child.bindings() : { ...this.parent.bindings(), ...this.childBindings };
  }
}

/**
 * Fastify's `childLoggerFactory`: a deferred child per request (see DeferredRequestLogger). A route with its own
 * `logLevel` gets a real child at once: its level, not the parent's, decides what is written.
 */
export function deferredChildLogger(logger: unknown, bindings: Bindings, options: ChildLoggerOptions): Logger {
  if (options.level !== undefined) return (logger as Logger).child(bindings, options);
  return new DeferredRequestLogger(logger as Logger, bindings, options) as unknown as Logger;
}
