import type { InvokeChannel, InvokeRequest, InvokeResponse } from '../../shared/contract';

/** One function per contract channel; each domain's `register()` fills in its part; `createAppServices` merges them. */
export type Handlers = {
  [C in InvokeChannel]: (request: InvokeRequest<C>) => Promise<InvokeResponse<C>>;
};
