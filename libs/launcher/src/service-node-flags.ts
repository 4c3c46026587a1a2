/**
 * Node and V8 flags every service process runs with, before its script: the launcher's spawn
 * (`sluice up`, `npm start`, benchmarks, tests) and the container image's entrypoint (Dockerfile,
 * so docker-compose and the Kubernetes manifests too) use the same list; a spec keeps the two equal.
 *
 * `--max-semi-space-size=16` (MiB): V8's young generation may otherwise grow each semi-space to
 * 64 MiB under a high allocation rate, and a service at 1 000 requests/s reached that in seconds:
 * 128 MiB of young generation, the largest part of its 300–370 MiB resident
 * (tools/bench/service-memory.mjs). At 16 MiB it stays at 32 MiB at most; what this costs in
 * scavenges and CPU is measured in docs/benchmarks.md ("Service memory"). It is a size for one
 * space, not a heap limit, so no load can make a service run out of memory because of it.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
