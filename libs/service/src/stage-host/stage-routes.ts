import { InferenceRequestSchema, PresenceEventSchema, subjects, type ControlVerb } from '@sluice/contracts';
import type { z } from 'zod';
import type { InboundRoute } from '../bus.transport.js';
import { STAGE_EVENT_ROUTES } from '../stage-event-routes.js';
import { REQUEST_CANCEL_ROUTE, WORKER_EVENT_ROUTES } from '../worker-event-routes.js';
import { REQUEST_STAGES, type RequestStage, type ServiceOf } from './request-stages.js';
import type { AnyStageDefinition } from './stage-definition.js';

/**
 * A stage's inbound routes: submissions shared by its queue group (acked on receipt, the ack naming
 * this process as the holder where REQUEST_STAGES says so), cancels and
 * the worker reports it follows (events, every replica gets each one, so each keeps the same view),
 * its replicas' presence, and its control verbs (request/reply, every replica answers). Each with
 * its schema from libs/contracts, checked at the edge.
 */
export function stageRoutes(definition: AnyStageDefinition): ReadonlyMap<string, InboundRoute> {
  const { submit, queue, ackNamesHolder } = REQUEST_STAGES[definition.stage];
  const submitRoute: InboundRoute = { schema: InferenceRequestSchema, queue, kind: 'handoff', ...(ackNamesHolder && { ackNamesHolder }) };
  const routes = new Map<string, InboundRoute>([[submit, submitRoute], REQUEST_CANCEL_ROUTE]);
  for (const kind of definition.follows) {
    const [pattern, route] = WORKER_EVENT_ROUTES[kind];
    routes.set(pattern, route);
  }
  for (const kind of definition.hears ?? []) {
    const [subject, route] = STAGE_EVENT_ROUTES[kind];
    routes.set(subject, route);
  }
  if (definition.presence !== undefined) routes.set(definition.presence, { schema: PresenceEventSchema, kind: 'event' });
  for (const { subject, schema } of controlRoutes(definition)) routes.set(subject, { schema, kind: 'control' });
  return routes;
}

/** Each control verb of a stage with its subject and the schema of what it is asked. */
export function controlRoutes(definition: AnyStageDefinition): { verb: string; subject: string; schema: z.ZodType }[] {
  const { service } = REQUEST_STAGES[definition.stage];
  const controls: Readonly<Record<string, z.ZodType | undefined>> = definition.controls ?? {};
  return Object.entries(controls).flatMap(([verb, schema]) =>
    // The keys of a definition's `controls` are its service's verbs (ControlSchemas).
    schema === undefined ? [] : [{ verb, subject: subjects.control(service, verb as ControlVerb<ServiceOf<RequestStage>>), schema }],
  );
}
