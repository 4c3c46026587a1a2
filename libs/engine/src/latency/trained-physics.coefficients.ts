import { z } from 'zod';

const positive = z.number().finite().positive();
/** BLIS refuses NaN, infinite and negative coefficients (sim/latency validateCoeffs). */
const coefficient = z.number().finite().nonnegative();

/**
 * What BLIS's trained-physics model needs, as a profile gives it under `trainedPhysics`: its
 * trained α and β, the model's architecture (its config.json) and the GPU's peaks (BLIS's
 * hardware_config.json). Dense models only: the MoE terms of BLIS's model are not carried, and a
 * profile with MoE keys fails the strict schema.
 */
export const TrainedPhysicsCoefficientsSchema = z.strictObject({
  /** [α0 queueing µs, α1 post-decode µs (BLIS's E2E metric only; not modelled here), α2 µs per output token]. */
  alpha: z.tuple([coefficient, coefficient, coefficient]),
  /**
   * β1ₐ..β_EP in BLIS's order, 7 to 11 of them: [prefill compute, decode compute, weight loading,
   * TP all-reduce, µs per layer, µs per request, µs per step, µs per MoE layer, prefill KV write,
   * decode KV read, MoE dispatch]. From 9 on the prefill term splits into compute + KV, from 10 on
   * the decode term does; with fewer each is β·max(compute, KV).
   */
  beta: z.array(coefficient).min(7).max(11),
  model: z.strictObject({
    /** num_hidden_layers */
    layers: z.number().int().positive(),
    /** hidden_size */
    hiddenDim: z.number().int().positive(),
    /** num_attention_heads; the head dimension is hiddenDim / heads, as BLIS takes it. */
    heads: z.number().int().positive(),
    /** num_key_value_heads */
    kvHeads: z.number().int().positive(),
    /** intermediate_size */
    intermediateDim: z.number().int().positive(),
    /** Bytes of the compute (activation) dtype: 2 for bf16. */
    bytesPerParam: positive,
    /** Bytes of a weight when quantized (1 for FP8); default bytesPerParam. */
    weightBytesPerParam: positive.optional(),
  }),
  hardware: z.strictObject({
    /** Dense peak, TFLOP/s (H100: 989.5). */
    tflopsPeak: positive,
    /** FP8 peak, TFLOP/s; used for a 1-byte-weight model when given. */
    tflopsFp8: positive.optional(),
    /** HBM bandwidth, TB/s (H100: 3.35). */
    bwPeakTBs: positive,
  }),
});
export type TrainedPhysicsCoefficients = z.infer<typeof TrainedPhysicsCoefficientsSchema>;
