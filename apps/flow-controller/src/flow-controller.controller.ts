import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  subjectPatterns,
  subjects,
  type CancelRequest,
  type InferenceRequest,
  type LifecycleEvent,
  type LoadSnapshot,
  type RequestDone,
} from '@sluice/contracts';
import { FlowControllerService } from './flow-controller.service.js';

@Controller()
export class FlowControllerController {
  constructor(private readonly flow: FlowControllerService) {}

  @MessagePattern(subjects.flowSubmit())
  submit(@Payload() request: InferenceRequest): void {
    this.flow.submit(request);
  }

  @EventPattern<string>(subjects.requestCancel())
  cancel(@Payload() cancel: CancelRequest): void {
    this.flow.onCancel(cancel);
  }

  @EventPattern(subjectPatterns.allWorkerLifecycle)
  lifecycle(@Payload() event: LifecycleEvent): void {
    this.flow.onLifecycle(event);
  }

  @EventPattern(subjectPatterns.allWorkerLoad)
  load(@Payload() snapshot: LoadSnapshot): void {
    this.flow.onSnapshot(snapshot);
  }

  @EventPattern(subjectPatterns.allWorkerDone)
  done(@Payload() done: RequestDone): void {
    this.flow.onDone(done);
  }
}
