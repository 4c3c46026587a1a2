import type { z } from 'zod';
import { BusyThresholdsAnnouncementSchema, subjects, type BusyThresholdsAnnouncement } from '@sluice/contracts';
import type { InboundRoute } from './bus.transport.js';

/**
 * What stages tell one another besides requests (events, no queue group: every replica hears each
 * one): admission's busy thresholds, which every router replica routes by.
 */
export const STAGE_EVENT_ROUTES = {
  'busy-thresholds': [subjects.busyThresholds(), { schema: BusyThresholdsAnnouncementSchema, kind: 'event' }],
} as const satisfies Record<string, readonly [string, InboundRoute]>;

export type StageEventKind = keyof typeof STAGE_EVENT_ROUTES;

export interface StageEvents {
  readonly 'busy-thresholds': BusyThresholdsAnnouncement;
}

export const STAGE_EVENT_SCHEMAS: { readonly [E in StageEventKind]: z.ZodType<StageEvents[E]> } = {
  'busy-thresholds': STAGE_EVENT_ROUTES['busy-thresholds'][1].schema,
};
