import type { InvokeChannel, InvokeRequest, InvokeResponse } from '../../shared/contract';

/** One function per contract channel; `buildHandlers()` in app-services.ts fills this in. */
export type Handlers = {
  [C in InvokeChannel]: (request: InvokeRequest<C>) => Promise<InvokeResponse<C>>;
};
