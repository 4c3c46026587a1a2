import { resolve } from 'node:path';
import { seedOf } from '@sluice/collections';
import { epochMicros } from '@sluice/bus';
import { configuredBusyThresholds, type RoutingPolicyRegistry } from '@sluice/policies';
import { LiveDecisionTraceFile } from '@sluice/report';
import { requestStage } from '@sluice/service';
import { RoutingStage, routingSettingsFrom } from '@sluice/stages';
import { createRouterMetrics } from './router.metrics.js';
import { RouterOnBus } from './router-on-bus.js';
import { ROUTING_REGISTRY } from './routing.registry.js';

/**
 * The routing stage on the stage host: libs/stages RoutingStage holds every rule (the policy's
 * choice, in-flight accounting, the prefix index, lost instances); `RouterOnBus` turns its effects
 * into handoffs to instances, error and migrate frames, the decision's span with its
 * counterfactual candidates, and metrics. Worker events go to every router replica, and so do
 * admission's busy thresholds: each replica starts from the configured ones and keeps the newest
 * admission announces (docs/architecture.md, "Signals and their freshness").
 */
export const ROUTER_STAGE = requestStage({
  stage: 'router',
  // KV events too, ignored unless the policy reads them (precise-prefix-cache): a stage's follows are fixed before its config is read.
  follows: ['lifecycle', 'load', 'done', 'kv'],
  hears: ['busy-thresholds'],
  inject: [ROUTING_REGISTRY],
  wire({ service, wakeUps, logger }, registry: RoutingPolicyRegistry) {
    const { router } = service.config;
    const metrics = createRouterMetrics(service.metrics, service.config.inferencePool, { instances: () => stage.instances(epochMicros()) });
    // Written off the event loop, bounded: a slow or full disk costs lines (counted), never a decision's time.
    let fileFullSaid = false;
    const trace =
      router.decisionTrace === undefined
        ? undefined
        : new LiveDecisionTraceFile(resolve(router.decisionTrace), (reason) => {
            metrics.traceLinesDropped.inc({ reason });
            if (reason !== 'backlog' && !fileFullSaid) {
              fileFullSaid = true;
              logger.warn(reason === 'file_full' ? `the decision trace ${router.decisionTrace} reached its size limit: later decisions are not written` : `the decision trace ${router.decisionTrace} could not be written: it stops here`);
            }
          });
    if (trace) logger.log(`writing each routing decision to ${trace.path}`);
    const onBus = new RouterOnBus(
      service,
      metrics,
      logger,
      router.counterfactualK,
      (request, carried, instanceId, message, why) => stage.handoffRefused(request, carried, instanceId, message, epochMicros(), why),
      trace && ((line) => trace.write(line)),
    );
    // Without a configured seed each replica breaks ties its own way, from its instance id.
    // worker.compat: blis also gives BLIS's tie-breaks (Go math/rand) live (docs/blis-mode.md).
    const busy = configuredBusyThresholds(service.config.admission.policies);
    const settings = { ...routingSettingsFrom(router, seedOf(service.instanceId), busy), compat: service.config.worker.compat };
    const stage = new RoutingStage(settings, registry, onBus, wakeUps);
    return {
      core: stage,
      take: (request, nowUs) => stage.route(request, nowUs, onBus.received(request, stage.policyName)),
      follow: {
        lifecycle: (event) => stage.onLifecycle(event),
        load: (snapshot) => stage.onSnapshot(snapshot),
        done: (done) => stage.onDone(done),
        kv: (event) => stage.onKv(event),
      },
      hear: {
        'busy-thresholds': (announcement) => {
          if (stage.onBusyThresholds(announcement)) logger.log(`busy thresholds are now ${JSON.stringify(announcement.settings)}`);
        },
      },
    };
  },
});
