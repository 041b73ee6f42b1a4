/**
 * The Node flags every platform process runs with, set by the project's own start commands: `npm start` (package.json)
 * and the image's entry point (Dockerfile, so every docker-compose service). Not NODE_OPTIONS: it refuses
 * `--no-memory-reducer`, and V8 reads that flag only when the heap is set up (v8.setFlagsFromString at start-up has no
 * effect). The benchmarks start the platform with them too, and test/foundation/node-flags.test.ts fails when one of
 * those places drifts from this list. Cluster processes inherit them from the primary (node:cluster forks with its
 * execArgv).
 *
 * `--max-semi-space-size=32` (MiB; Node 20's default on 64-bit is 16): the young generation holds every object of
 * the requests in flight — a few hundred at a time under load. With 16 MiB it was scavenged several times a
 * second, each scavenge stopping every request in flight; 32 MiB halves how often. Measured in alternating pairs
 * (docs/benchmarks-history.md, inference, "2026-11-25, second session"): chat completions at 50 ms × 200 clients
 * −5 to −12 % CPU per request and −10 to −20 % p99 (medians; the smaller figures since request loggers allocate
 * less); Family A ingestion unchanged. The cost: up to 32 MiB more memory per process (two semi-spaces).
 *
 * `--no-memory-reducer`: V8's memory reducer runs full collections to give memory back whenever allocation slows
 * down — which a server at a moderate rate (chat completions at 300 ms × 200 clients, a few hundred a second per
 * process) looks like. Each one also drops the optimized code of objects it frees, and the request path is compiled
 * again: −21 to −44 % CPU per request at 300 ms, p50 and p99 lower in every cell (docs/benchmarks-history.md,
 * inference, "2026-11-27, seventh session"). The cost: after a burst, an idle process keeps its grown heap until
 * the next ordinary collection.
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32', '--no-memory-reducer'];
