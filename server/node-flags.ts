/**
 * The Node flags every platform process runs with, set by the project's own start commands: `npm start` (package.json)
 * and the image's NODE_OPTIONS (Dockerfile, so every docker-compose service). The benchmarks start the platform
 * with them too, and test/foundation/node-flags.test.ts fails when one of those places drifts from this list.
 *
 * `--max-semi-space-size=32` (MiB; Node 20's default on 64-bit is 16): the young generation holds every object of
 * the requests in flight — a few hundred at a time under load. With 16 MiB it was scavenged several times a
 * second, each scavenge stopping every request in flight; 32 MiB halves how often. Measured in alternating pairs
 * (docs/benchmarks.md, inference, "2026-11-25, second session"): chat completions at 50 ms × 200 clients −5 to −12 %
 * CPU per request and −10 to −20 % p99 (medians; the smaller figures since request loggers allocate less); Family A
 * ingestion unchanged. The cost: up to 32 MiB more memory per process (two semi-spaces).
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
