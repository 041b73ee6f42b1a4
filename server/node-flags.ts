/**
 * The Node flags every platform process runs with, set by the project's own start commands: `npm start` (package.json)
 * and the image's NODE_OPTIONS (Dockerfile, so every docker-compose service). The benchmarks start the platform
 * with them too, and test/foundation/node-flags.test.ts fails when one of those places drifts from this list.
 *
 * `--max-semi-space-size=32` (MiB; Node 20's default on 64-bit is 16): the young generation holds every object of
 * the requests in flight — a few hundred at a time under load. With 16 MiB it was scavenged several times a
 * second, each scavenge copying whatever was in flight; 32 MiB halves how often. Measured in alternating pairs
 * (docs/benchmarks.md, "Young generation size"): inference 50 ms × 200 clients −10 to −20 % CPU per request and a
 * lower p99; Family A ingestion unchanged. The cost is up to 3 × 16 MiB more young-generation memory per process.
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
