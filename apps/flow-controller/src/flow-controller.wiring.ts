import { epochMicros } from '@sluice/bus';
import type { FlowControlRegistry } from '@sluice/policies';
import { requestStage } from '@sluice/service';
import { FlowControlStage, flowControlSettingsFrom } from '@sluice/stages';
import { FLOW_CONTROL_REGISTRY } from './flow-control.registry.js';
import { createFlowControlMetrics } from './flow-control.metrics.js';
import { FlowControlOnBus } from './flow-control-on-bus.js';

/**
 * The flow-control stage on the stage host: libs/stages FlowControlStage holds every rule (queues,
 * the gated dispatch cycle, TTLs, legacy shedding); `FlowControlOnBus` turns its effects into
 * handoffs to the router, error frames, spans and the Endpoint Picker's metrics. It holds requests
 * while they wait, so cancels reach its queues; at shutdown it hands every queued request back to
 * its gateway, which queues it again at another flow controller, or this one restarted
 * (docs/behaviour.md §6).
 */
export const FLOW_CONTROLLER_STAGE = requestStage({
  stage: 'flow',
  follows: ['lifecycle', 'load', 'done'],
  inject: [FLOW_CONTROL_REGISTRY],
  wire({ service, wakeUps, intake, logger }, registry: FlowControlRegistry) {
    const config = service.config.flowController;
    const metrics = createFlowControlMetrics(service.metrics, service.config.inferencePool, {
      queuedByModel: () => stage.queuedByModel(),
      saturation: () => stage.saturation(epochMicros()),
      trackedFlows: () => stage.trackedFlows,
    }, service.config.metrics.maxTenantSeries);
    const onBus = new FlowControlOnBus(service, metrics, config.enabled, intake, (request, carried, message, why) => stage.handoffRefused(request, carried, message, why));
    const stage = new FlowControlStage(flowControlSettingsFrom(config, registry), onBus, wakeUps);
    const detector = config.saturationDetector.type;
    return {
      core: stage,
      take: (request, nowUs) => stage.submit(request, nowUs, onBus.received(request, stage.mode)),
      cancel: (cancel, nowUs) => stage.onCancel(cancel, nowUs),
      follow: {
        lifecycle: (event, nowUs) => stage.onLifecycle(event, nowUs),
        load: (snapshot, nowUs) => stage.onSnapshot(snapshot, nowUs),
        done: (done, nowUs) => stage.onDone(done, nowUs),
      },
      started: () => logger.log(stage.mode === 'queue' ? `queuing with ${detector}` : `flow control disabled: pass-through, sheddable requests shed while ${detector} says saturated`),
    };
  },
});
