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
import { RouterService } from './router.service.js';

@Controller()
export class RouterController {
  constructor(private readonly router: RouterService) {}

  @MessagePattern(subjects.routerSubmit())
  submit(@Payload() request: InferenceRequest): void {
    this.router.route(request);
  }

  @EventPattern<string>(subjects.requestCancel())
  cancel(@Payload() cancel: CancelRequest): void {
    this.router.onCancel(cancel);
  }

  @EventPattern(subjectPatterns.allWorkerLifecycle)
  lifecycle(@Payload() event: LifecycleEvent): void {
    this.router.onLifecycle(event);
  }

  @EventPattern(subjectPatterns.allWorkerLoad)
  load(@Payload() snapshot: LoadSnapshot): void {
    this.router.onSnapshot(snapshot);
  }

  @EventPattern(subjectPatterns.allWorkerDone)
  done(@Payload() done: RequestDone): void {
    this.router.onDone(done);
  }
}
