import { micros } from '@sluice/contracts';
import type { Micros } from '../engine.types.js';
import { batchOfCounts, type LatencyModel, type StepBatch } from './latency-model.js';
import type { TrainedPhysicsCoefficients } from './trained-physics.coefficients.js';

export const TRAINED_PHYSICS = 'trained-physics';

/** Bytes of one KV element: BLIS keeps the KV cache in FP16 whatever the weights' dtype. */
const KV_BYTES = 2;

/**
 * BLIS's "trained-physics" model: roofline times of the step's work, each scaled by a trained β,
 * plus per-layer, per-request and per-step overheads (inference-sim/inference-sim
 * sim/latency/trained_physics_model.go at f90a1e3a6787da17c2cd463dab6fb2660b1b1760, `StepTime`;
 * its coefficients: defaults.yaml `trained_physics_coefficients` at the same commit). For a dense
 * model with data parallelism 1, in µs (FLOPs / peak FLOP/µs, bytes / peak bytes/µs):
 *
 *   prefill compute = L·[2·P·d·(2d + 2·dKV)/tp + 4·(H/tp)·dH·Σ t·(s + t/2) + 6·P·d·dFF/tp] / FLOPS
 *   prefill KV      = L·2·(dKV/tp)·P·2 / BW
 *   decode compute  = L·[2·D·d·(2d + 2·dKV)/tp + 4·(H/tp)·dH·C + 6·D·d·dFF/tp] / FLOPS
 *   decode KV       = L·2·(dKV/tp)·2·(C + D) / BW
 *   weights         = L·[d·(2d + 2·dKV) + 3·d·dFF]·bytes/tp / BW
 *   TP all-reduce   = 2L·(P + D)·d·bytes·2·(tp − 1)/tp / BW
 *   step = β1ₐ·prefill compute + β1ᵦ·prefill KV + β2ₐ·decode compute + β2ᵦ·decode KV
 *        + β3·weights + β4·all-reduce + β5·L + β6·B + β7
 *
 * P, D: the step's new prefill and decode tokens; C: the decoders' tokens already in KV; B: the
 * requests in the step; dH = d/H, dKV = kvHeads·dH. With fewer than 9 (10) betas the prefill
 * (decode) term is β·max(compute, KV). Truncated to µs, at least 1; an empty batch is 1 µs, as BLIS
 * returns. Queueing delay α0 and output-token delay α2 are truncated too. BLIS's α1 (a fixed
 * post-decode overhead) only adds to its E2E metric, not to the simulation nor to the trace's
 * last_chunk_time_us, so it is not modelled here.
 */
export function createTrainedPhysicsModel({ alpha, beta, model, hardware }: TrainedPhysicsCoefficients, tp: number): LatencyModel {
  const { layers: L, hiddenDim: d, heads, kvHeads, intermediateDim: dFF, bytesPerParam } = model;
  const weightBytes = model.weightBytesPerParam ?? bytesPerParam;
  if (heads % tp !== 0 || kvHeads % tp !== 0) throw new RangeError(`trained-physics: heads (${heads}) and kvHeads (${kvHeads}) must divide by tp (${tp})`);
  const dH = Math.trunc(d / heads);
  const dKV = kvHeads * dH;
  const flopsPerUs = (weightBytes === 1 && hardware.tflopsFp8 !== undefined ? hardware.tflopsFp8 : hardware.tflopsPeak) * 1e6;
  const bytesPerUs = hardware.bwPeakTBs * 1e6;
  const b = Array.from({ length: 11 }, (_, i) => beta[i] ?? 0);
  const prefillSplit = beta.length >= 9;
  const decodeSplit = beta.length >= 10;

  // What does not depend on the batch, computed once. For tp = 1 every FLOP and byte count is an
  // exact integer in a double, so these products give BLIS's sums to the bit.
  const projectionFlopsPerToken = (L * 2 * d * (2 * d + 2 * dKV)) / tp;
  const mlpFlopsPerToken = (L * 6 * d * dFF) / tp;
  const attentionFlopsPerUnit = L * 4 * (heads / tp) * dH;
  const kvBytesPerToken = L * 2 * (dKV / tp) * KV_BYTES;
  const weightsUs = ((L * d * (2 * d + 2 * dKV) * weightBytes) / tp + (L * 3 * d * dFF * weightBytes) / tp) / bytesPerUs;
  const allReduceUsPerToken = tp > 1 ? (2 * L * d * bytesPerParam * 2 * ((tp - 1) / tp)) / bytesPerUs : 0;

  const queueing = micros(Math.max(0, Math.trunc(alpha[0])));
  const outputDelay = micros(Math.max(0, Math.trunc(alpha[2])));

  function stepUs(prefill: number, decode: number, batch: StepBatch): number {
    let prefillTerm = 0;
    if (prefill > 0) {
      const compute = ((projectionFlopsPerToken + mlpFlopsPerToken) * prefill + attentionFlopsPerUnit * batch.prefillAttentionTokens) / flopsPerUs;
      const kv = (kvBytesPerToken * prefill) / bytesPerUs;
      prefillTerm = prefillSplit ? b[0]! * compute + b[8]! * kv : b[0]! * Math.max(compute, kv);
    }
    let decodeTerm = 0;
    if (decode > 0) {
      const compute = ((projectionFlopsPerToken + mlpFlopsPerToken) * decode + attentionFlopsPerUnit * batch.decodeContextTokens) / flopsPerUs;
      const kv = (kvBytesPerToken * (batch.decodeContextTokens + decode)) / bytesPerUs;
      decodeTerm = decodeSplit ? b[1]! * compute + b[9]! * kv : b[1]! * Math.max(compute, kv);
    }
    // Summed in BLIS's order (floating-point addition is not associative; the result is truncated).
    return prefillTerm + decodeTerm + b[2]! * weightsUs + b[3]! * allReduceUsPerToken * (prefill + decode) + b[4]! * L + b[5]! * batch.requests + b[6]!;
  }

  return {
    name: TRAINED_PHYSICS,
    queueingDelayUs: (): Micros => queueing,
    stepTimeUs: (prefillTokens: number, decodeTokens: number, batch = batchOfCounts(prefillTokens, decodeTokens)): Micros =>
      micros(batch.requests === 0 ? 1 : Math.max(1, Math.trunc(stepUs(prefillTokens, decodeTokens, batch)))),
    outputTokenDelayUs: (): Micros => outputDelay,
  };
}
