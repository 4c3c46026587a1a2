/**
 * A request as the gateway hands it to admission, before the fields zod fills in (`bodyBytes`,
 * `timings`): one valid message that the contracts' specs and the bus's edge specs start from and
 * vary, so none of them keeps its own copy.
 */
export const EXAMPLE_INFERENCE_REQUEST = {
  id: 'cmpl-1',
  model: 'qwen3-14b',
  inputTokens: 40,
  blockHashes: [1, 2],
  maxTokens: 16,
  sloClass: 'standard',
  priority: 3,
  fairnessId: 'default',
  arrivalUs: 1_000,
  deadlineUs: 2_000,
  attempt: 0,
  gatewayId: 'gw-1',
  replyTo: 'sluice.v1.inbox.gw-1.cmpl-1',
} as const;
