import { TrellisError } from '../errors.js';

/**
 * Per-key and per-project admission of requests to models: at most N requests in flight and M started in any
 * 60-second window. Every path to a model in a process goes through the one limiter the composition root hands
 * to its subgraphs (inference's chat completions, training's checkpoint completions). Counted in this process;
 * the processes of one `npm start` (a process per core) ask their primary's one limiter (platform/cluster), while
 * separately deployed services (docker-compose) each count their own.
 * Over a limit → 429 with Retry-After, in the words the hosted service uses.
 */
export interface LimitSettings {
  keyConcurrency: number;
  keyRequestsPerMinute: number;
  projectConcurrency: number;
  projectRequestsPerMinute: number;
}

export interface Lease {
  release(): void;
}

/** Admission of requests to models, decided here or by another process (then asynchronously). */
export interface ModelLimiter {
  /** Admits a request or rejects with RateLimitedError; the lease must be released when the request ends. */
  acquire(keyId: string, project: string): Lease | Promise<Lease>;
}

const WINDOW_MS = 60_000;

export class RateLimitedError extends TrellisError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'RATE_LIMITED', message, { retryAfterSeconds });
  }
}

/** Start times of the last `limit` requests, oldest first, in a ring: O(1) per request. */
class SlidingWindow {
  private readonly starts: Float64Array;
  private next = 0;
  private count = 0;

  constructor(private readonly limit: number) {
    this.starts = new Float64Array(limit);
  }

  /** Milliseconds until a request may start, 0 when it may start now. */
  wait(now: number): number {
    if (this.count < this.limit) return 0;
    const oldest = this.starts[this.next]!;
    return Math.max(0, oldest + WINDOW_MS - now);
  }

  record(now: number): void {
    this.starts[this.next] = now;
    this.next = (this.next + 1) % this.limit;
    this.count = Math.min(this.count + 1, this.limit);
  }
}

class Counter {
  inFlight = 0;
  window: SlidingWindow | undefined;
  lastUsed = 0;
}

export class RequestLimiter implements ModelLimiter {
  private readonly keys = new Map<string, Counter>();
  private readonly projects = new Map<string, Counter>();
  private sweeps = 0;

  constructor(private readonly settings: LimitSettings) {}

  get enabled(): boolean {
    const s = this.settings;
    return s.keyConcurrency + s.keyRequestsPerMinute + s.projectConcurrency + s.projectRequestsPerMinute > 0;
  }

  /** Admits a request or throws RateLimitedError; the lease must be released when the request ends. */
  acquire(keyId: string, project: string, now = Date.now()): Lease {
    if (!this.enabled) return NO_LEASE;
    const s = this.settings;
    const key = this.counter(this.keys, keyId, s.keyRequestsPerMinute, now);
    const proj = this.counter(this.projects, project, s.projectRequestsPerMinute, now);
    if (s.keyConcurrency > 0 && key.inFlight >= s.keyConcurrency) {
      throw new RateLimitedError('Concurrency limit reached for requests (API key)', 1);
    }
    if (s.projectConcurrency > 0 && proj.inFlight >= s.projectConcurrency) {
      throw new RateLimitedError(`Concurrency limit reached for requests (project ${project})`, 1);
    }
    const keyWait = key.window?.wait(now) ?? 0;
    if (keyWait > 0) throw new RateLimitedError('Rate limit reached for requests per minute (API key)', Math.ceil(keyWait / 1000));
    const projectWait = proj.window?.wait(now) ?? 0;
    if (projectWait > 0) {
      throw new RateLimitedError(`Rate limit reached for requests per minute (project ${project})`, Math.ceil(projectWait / 1000));
    }
    key.window?.record(now);
    proj.window?.record(now);
    key.inFlight++;
    proj.inFlight++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        key.inFlight--;
        proj.inFlight--;
      },
    };
  }

  private counter(map: Map<string, Counter>, id: string, perMinute: number, now: number): Counter {
    let counter = map.get(id);
    if (!counter) {
      if (++this.sweeps % 1024 === 0) this.sweep(map, now);
      counter = new Counter();
      if (perMinute > 0) counter.window = new SlidingWindow(perMinute);
      map.set(id, counter);
    }
    counter.lastUsed = now;
    return counter;
  }

  /** Forgets idle keys and projects, so the maps do not grow without bound. */
  private sweep(map: Map<string, Counter>, now: number): void {
    for (const [id, counter] of map) {
      if (counter.inFlight === 0 && counter.lastUsed < now - WINDOW_MS) map.delete(id);
    }
  }
}

export const NO_LEASE: Lease = { release: () => undefined };
