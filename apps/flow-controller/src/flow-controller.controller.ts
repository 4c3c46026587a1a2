import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { subjects, type InferenceRequest } from '@sluice/contracts';
import { FlowControllerService } from './flow-controller.service.js';

@Controller()
export class FlowControllerController {
  constructor(private readonly flow: FlowControllerService) {}

  @MessagePattern(subjects.flowSubmit())
  submit(@Payload() request: InferenceRequest): Promise<void> {
    return this.flow.submit(request);
  }
}
