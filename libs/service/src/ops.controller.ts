import type { ServerResponse } from 'node:http';
import { Controller, Get, Headers, HttpCode, HttpException, HttpStatus, Inject, Res } from '@nestjs/common';
import { MetricsPage } from '@sluice/telemetry';
import { registerBusConnectionMetrics } from './bus-connection.metrics.js';
import { registerBusRejectionMetrics } from './bus-rejections.metrics.js';
import { sendMetricsPage } from './metrics-response.js';
import { SERVICE_CONTEXT, type ServiceContext } from './service-context.js';

/** /healthz (process alive), /readyz (connected and not shutting down), /metrics (Prometheus text or OpenMetrics). */
@Controller()
export class OpsController {
  /** Written family by family, yielding between them, and sent as it is written; concurrent scrapes share one render. */
  private readonly page: MetricsPage;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext) {
    this.page = new MetricsPage(service.metrics);
    // What the bus refused is every service's business: counted where /metrics is served.
    registerBusRejectionMetrics(service.metrics, service.bus);
    registerBusConnectionMetrics(service.metrics, service.bus);
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

  /** Prometheus text 0.0.4, or OpenMetrics 1.0 (with exemplars) when the scraper's Accept asks for it. */
  @Get('metrics')
  async metrics(@Res() res: ServerResponse, @Headers('accept') accept: string | undefined): Promise<void> {
    await sendMetricsPage(this.page, res, accept);
  }
}
