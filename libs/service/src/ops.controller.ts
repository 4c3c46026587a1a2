import { Controller, Get, Header, HttpCode, HttpException, HttpStatus, Inject } from '@nestjs/common';
import { MetricsPage } from '@sluice/telemetry';
import { registerBusRejectionMetrics } from './bus-rejections.metrics.js';
import { SERVICE_CONTEXT, type ServiceContext } from './service-context.js';

/** /healthz (process alive), /readyz (connected and not shutting down), /metrics (Prometheus). */
@Controller()
export class OpsController {
  /** Written family by family, yielding between them; concurrent scrapes share one render. */
  private readonly page: MetricsPage;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext) {
    this.page = new MetricsPage(service.metrics);
    // What the bus refused is every service's business: counted where /metrics is served.
    registerBusRejectionMetrics(service.metrics, service.bus);
  }

  @Get('healthz')
  @HttpCode(200)
  healthz(): { status: 'ok'; service: string } {
    return { status: 'ok', service: this.service.name };
  }

  @Get('readyz')
  readyz(): { status: 'ready' } {
    const problem = this.service.readiness();
    if (problem) throw new HttpException({ status: 'not ready', reason: problem }, HttpStatus.SERVICE_UNAVAILABLE);
    return { status: 'ready' };
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(): Promise<string> {
    return this.page.render();
  }
}
