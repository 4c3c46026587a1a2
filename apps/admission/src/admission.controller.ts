import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { subjects, type InferenceRequest } from '@sluice/contracts';
import { AdmissionService } from './admission.service.js';

@Controller()
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @MessagePattern(subjects.admissionSubmit())
  submit(@Payload() request: InferenceRequest): Promise<void> {
    return this.admission.admit(request);
  }
}
