import { queueGroups, subjects, type ResumeStage, type ServiceName } from '@sluice/contracts';

/** A stage that takes requests from a submit subject: admission, flow control, routing. */
export type RequestStage = ResumeStage;

/**
 * Each request-taking stage's service (its logger, its control subjects) and its submit subject
 * with the queue group its replicas share, so a stage definition names only its stage and cannot
 * pair one stage's name with another's subject.
 *
 * `ackNamesHolder`: the stage tells the gateway that it holds a request in its ack instead of a
 * `held` frame. Only admission: its sender is always the gateway that owns the request, which waits
 * for that ack anyway. Flow control and routing are handed requests by the stage before them, so
 * their acks go there, and the gateway hears of them by their `held` frames.
 */
export const REQUEST_STAGES = {
  admission: { service: 'admission', submit: subjects.admissionSubmit(), queue: queueGroups.admission, ackNamesHolder: true },
  flow: { service: 'flow-controller', submit: subjects.flowSubmit(), queue: queueGroups.flowController, ackNamesHolder: false },
  router: { service: 'router', submit: subjects.routerSubmit(), queue: queueGroups.router, ackNamesHolder: false },
} as const satisfies Record<RequestStage, { readonly service: ServiceName; readonly submit: string; readonly queue: string; readonly ackNamesHolder: boolean }>;

export type ServiceOf<S extends RequestStage> = (typeof REQUEST_STAGES)[S]['service'];
