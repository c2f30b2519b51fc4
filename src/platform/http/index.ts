export { installRequestId, genRequestId } from './request-id.ts';
export { installJsonBody, BODY_LIMIT_BYTES } from './body.ts';
export { MAX_PARAM_CHARS, answerFrameworkError, installBadInputGuards } from './bad-input.ts';
export { CHECKOUT_EXPOSED_HEADERS, corsOpenHeaders } from './cors-open.ts';
export { installErrorMapper } from './error-mapper.ts';
export { createMetricsRegistry, installMetrics } from './metrics.ts';
export { isLiveQuery, livemodeOf } from './mode.ts';
export { clientAddressOf, trustProxyOption } from './trust-proxy.ts';
export { queryOf, paramOf, idOf, type Query } from './request.ts';
