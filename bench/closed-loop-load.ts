import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';

/**
 * The inference benchmark's load generator: N clients in a closed loop (each sends its next request when the
 * previous one is done), over N keep-alive connections. It must cost as little CPU as possible, because it
 * shares the machine with what it measures: requests go through undici's `dispatch` with a bare handler — no
 * response stream, no promise per body chunk, no header object beyond what undici builds anyway — and the
 * request body is one string built once.
 */
export interface LoadRequest {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadWindow {
  /** Latencies (ms) of the requests that finished with HTTP 200 inside the measured window, sorted. */
  latencies: number[];
  errors: number;
  firstError?: string;
  seconds: number;
  /** Requests answered 200 over the whole run (warm-up included). */
  succeeded: number;
}

export interface LoadOptions {
  concurrency: number;
  warmupMs: number;
  measureMs: number;
  /** Latency up to the first body byte (time to first byte of a stream) instead of up to the end. */
  firstByte: boolean;
  /**
   * Clients start evenly spread over this many ms (0: all at once). With a fixed upstream delay, clients that start
   * together stay in lockstep: every request of a wave arrives in the same millisecond and waits for the ones
   * ahead of it on the proxy's one thread, so the figure measures the wave. Spread over one upstream delay,
   * arrivals are uniform, as from independent users.
   */
  startSpreadMs?: number;
  /** Called when the measured window opens and closes (e.g. to read CPU counters). */
  onWindowStart?(): void;
  onWindowEnd?(): void;
}

/** One request; resolves with its latency in ms, or rejects with what went wrong. */
function send(pool: Pool, request: LoadRequest, firstByte: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let status = 0;
    let firstByteAt = 0;
    let errorBody = '';
    const handler: Dispatcher.DispatchHandler = {
      // Its presence tells undici this is a handler of the current (controller-based) interface.
      onRequestStart() {},
      onResponseStart(_controller, statusCode) {
        status = statusCode;
      },
      onResponseData(_controller, chunk) {
        if (firstByteAt === 0) firstByteAt = performance.now();
        if (status !== 200 && errorBody.length < 300) errorBody += chunk.toString('utf8');
      },
      onResponseEnd() {
        if (status !== 200) return reject(new Error(`HTTP ${status} ${errorBody.slice(0, 300)}`));
        resolve((firstByte && firstByteAt ? firstByteAt : performance.now()) - started);
      },
      onResponseError(_controller, error) {
        reject(error);
      },
    };
    try {
      pool.dispatch({ origin: request.origin, path: request.path, method: 'POST', headers: request.headers, body: request.body }, handler);
    } catch (error) {
      reject(error);
    }
  });
}

export async function runClosedLoop(request: LoadRequest, options: LoadOptions): Promise<LoadWindow> {
  const pool = new Pool(request.origin, { connections: options.concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let succeeded = 0;
  let recording = false;
  let running = true;
  const client = async (index: number) => {
    const spread = options.startSpreadMs ?? 0;
    if (spread > 0) await sleep((index * spread) / options.concurrency);
    while (running) {
      try {
        const latency = await send(pool, request, options.firstByte);
        succeeded++;
        if (recording) latencies.push(latency);
      } catch (error) {
        if (recording) {
          errors++;
          firstError ??= (error as Error).message;
        }
        // A request that fails at once must not turn this loop into a microtask spin that starves the timers.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  };
  const clients = Array.from({ length: options.concurrency }, (_, index) => client(index));
  await sleep(options.warmupMs);
  options.onWindowStart?.();
  recording = true;
  const opened = performance.now();
  await sleep(options.measureMs);
  recording = false;
  const seconds = (performance.now() - opened) / 1000;
  options.onWindowEnd?.();
  running = false;
  await Promise.all(clients);
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { latencies, errors, firstError, seconds, succeeded };
}

/** The sample at quantile `q` (0..1) of sorted latencies. */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
