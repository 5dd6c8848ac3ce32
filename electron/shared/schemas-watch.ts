import { z } from 'zod';
import { ContainerId, EngineId } from './schemas';

/**
 * How long a page's report (shown, watching a dashboard) holds without being renewed. A page renews
 * every `PAGE_LEASE_RENEW_MS`; one that stops (closed, crashed, disconnected) counts as gone after this.
 */
export const PAGE_LEASE_MS = 45_000;
export const PAGE_LEASE_RENEW_MS = 15_000;

/** A page of the UI (window or tab): a random id it picks when it loads. */
export const PageId = z.string().min(8).max(100);

/** `app:visibility`: whether this page is shown now (document visible). */
export const PageVisibilityReport = z.object({ pageId: PageId, shown: z.boolean() });
/** Whether any page shows the app now. */
export const AppVisibility = z.object({ shown: z.boolean() });

/** `training:interest`: this page shows (or stopped showing) the training dashboard of one server. */
export const TrainingInterest = z.object({ pageId: PageId, engineId: EngineId, containerId: ContainerId, shown: z.boolean() });
/** Whether any page shows that server's training dashboard now. */
export const TrainingInterestState = z.object({ interested: z.boolean() });

export type PageVisibilityReport = z.infer<typeof PageVisibilityReport>;
export type TrainingInterest = z.infer<typeof TrainingInterest>;
