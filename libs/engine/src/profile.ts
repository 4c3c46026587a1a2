import { z } from 'zod';
import { LATENCY_MODEL_NAMES } from './latency/latency-model-names.js';
import { TRAINED_PHYSICS } from './latency/trained-physics.model.js';
import { TrainedPhysicsCoefficientsSchema } from './latency/trained-physics.coefficients.js';

const Coefficients = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);

/**
 * A latency profile: one model on one GPU setup, as data (a YAML file), so users add their own
 * (docs/behaviour.md §1). Loading the file happens outside this pure library; this is its shape.
 */
export const LatencyProfileSchema = z
  .strictObject({
    /** The profile's name, usually the model's (`qwen3-14b`). */
    name: z.string().min(1),
    gpu: z.string().min(1),
    /** Tensor-parallel degree the coefficients were fitted with. */
    tp: z.number().int().positive(),
    /** BLIS α: [queueing base µs, queueing µs per input token, output token µs]. */
    alpha: Coefficients,
    /** BLIS β: [step base µs, µs per new prefill token, µs per decode token]. */
    beta: Coefficients,
    /** KV capacity of one instance, in 16-token blocks. */
    totalKvBlocks: z.number().int().positive(),
    /** Longest prompt + output the model accepts, in tokens. */
    maxModelLen: z.number().int().positive().default(40960),
    latencyModel: z.enum(LATENCY_MODEL_NAMES).default('blackbox'),
    /**
     * How long a new instance takes from its creation to serving (weights loaded, graphs compiled
     * and captured, KV cache sized), in model time: an autoscaled instance is not routable before.
     * Absent: at once.
     */
    modelLoadMs: z.number().int().nonnegative().optional(),
    /**
     * The model's KV geometry (its config.json): sizes a KV block for a transfer between a prefill
     * and a decode instance. Optional: only a disaggregated deployment needs it.
     */
    kvShape: z
      .strictObject({
        layers: z.number().int().positive(),
        kvHeads: z.number().int().positive(),
        headDim: z.number().int().positive(),
        /** 2 for bf16/fp16, 1 for fp8. */
        dtypeBytes: z.number().int().positive(),
      })
      .optional(),
    /**
     * BLIS's trained-physics model (`latencyModel: trained-physics`): its coefficients, the model's
     * architecture and the GPU's peaks. α and β above stay the linear step estimate that admission's
     * predictor reads (libs/stages admission settings), whichever model runs the engine.
     */
    trainedPhysics: TrainedPhysicsCoefficientsSchema.optional(),
  })
  .superRefine((profile, ctx) => {
    // A model chosen without its coefficients would have nothing to compute with: refused at load,
    // naming the key, rather than falling back to another model.
    if (profile.latencyModel === TRAINED_PHYSICS && profile.trainedPhysics === undefined) {
      ctx.addIssue({ code: 'custom', path: ['trainedPhysics'], message: `latencyModel ${TRAINED_PHYSICS} needs its coefficients here (alpha, beta, model, hardware)` });
    }
    // Attention heads are split over the tensor-parallel ranks (BLIS refuses the same).
    for (const key of ['heads', 'kvHeads'] as const) {
      const heads = profile.trainedPhysics?.model[key];
      if (heads !== undefined && heads % profile.tp !== 0) ctx.addIssue({ code: 'custom', path: ['trainedPhysics', 'model', key], message: `${heads} ${key} do not divide over tp ${profile.tp}` });
    }
  });
export type LatencyProfile = z.infer<typeof LatencyProfileSchema>;
export type LatencyProfileInput = z.input<typeof LatencyProfileSchema>;
