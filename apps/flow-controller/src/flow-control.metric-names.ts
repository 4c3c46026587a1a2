/** `llm_d_epp_flow_control_<suffix>` and its deprecated `inference_extension_flow_control_<suffix>` twin. */
export const flowControlNames = (suffix: string) => ({ current: `llm_d_epp_flow_control_${suffix}`, legacy: `inference_extension_flow_control_${suffix}` });

/** The labels of one flow's queue for one model: the queue gauges', and with `outcome` the queue-duration histogram's. */
export const FLOW_QUEUE_LABELS = ['fairness_id', 'priority', 'inference_pool', 'model_name', 'target_model_name'] as const;
export type FlowQueueLabel = (typeof FLOW_QUEUE_LABELS)[number];
