import { queueGroups, subjects, type ResumeStage, type ServiceName } from '@sluice/contracts';

/** A stage that takes requests from a submit subject: admission, flow control, routing. */
export type RequestStage = ResumeStage;

/**
 * Each request-taking stage's service (its logger, its control subjects) and its submit subject
 * with the queue group its replicas share, so a stage definition names only its stage and cannot
 * pair one stage's name with another's subject.
 */
export const REQUEST_STAGES = {
  admission: { service: 'admission', submit: subjects.admissionSubmit(), queue: queueGroups.admission },
  flow: { service: 'flow-controller', submit: subjects.flowSubmit(), queue: queueGroups.flowController },
  router: { service: 'router', submit: subjects.routerSubmit(), queue: queueGroups.router },
} as const satisfies Record<RequestStage, { readonly service: ServiceName; readonly submit: string; readonly queue: string }>;

export type ServiceOf<S extends RequestStage> = (typeof REQUEST_STAGES)[S]['service'];
