import type { Attributes } from '@opentelemetry/api';

/*
 * The OpenTelemetry semantic conventions sluice's spans follow, in one place: the messaging
 * conventions (open-telemetry/semantic-conventions v1.45.0, docs/messaging/messaging-spans.md; `messaging.system`
 * `nats` is not a well-known value there, which the conventions allow) and the GenAI ones
 * (open-telemetry/semantic-conventions-genai v0.1.0, where they moved after v1.41.0 of the main
 * repository; `gen_ai.provider.name` replaced `gen_ai.system` in v1.37.0). The attribute names are
 * spelt here rather than imported: the incubating entry point of @opentelemetry/semantic-conventions
 * is not stable across its minor releases.
 */

/** `gen_ai.provider.name`: the GenAI provider as the client sees it. sluice serves the models itself. */
export const GEN_AI_PROVIDER = 'sluice';

/**
 * A stage's CONSUMER span of a message it took from a NATS subject and handles: the messaging
 * conventions' `process` operation. `group` is the NATS queue group the stage's replicas share
 * (`messaging.consumer.group.name`, conditionally required when there is one).
 */
export function natsProcessAttributes(subject: string, group?: string): Attributes {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': subject,
    ...(group === undefined ? {} : { 'messaging.consumer.group.name': group }),
  };
}
