/**
 * Node and V8 flags every service process runs with, before its script: the launcher's spawn
 * (`sluice up`, `npm start`, benchmarks, tests) and the container image's entrypoint (Dockerfile,
 * so docker-compose and the Kubernetes manifests too) use the same list; a spec keeps the two equal.
 * Measured in docs/benchmarks.md ("Service memory", tools/bench/service-memory.mjs).
 *
 * `--max-semi-space-size=16` (MiB): V8 grows each of the young generation's two semi-spaces up
 * to 64 MiB under a high allocation rate, and a service at 1 000 requests/s got there within the
 * minute: 128 MiB of young generation, the largest part of its 300–370 MiB resident. At 16 MiB
 * it stays at 32 MiB.
 *
 * `--heap-growing-percent=50`: after a full collection V8 lets the old space grow to up to 4×
 * what survived before it collects again; the services keep ~30–40 MiB live, so 60–125 MiB of
 * old space at the end of a minute of load was mostly garbage. At 1.5× it stayed at 44–60 MiB,
 * with no more CPU that the benchmark could see.
 *
 * Neither is a heap limit: no load can make a service run out of heap because of them.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--heap-growing-percent=50'];
