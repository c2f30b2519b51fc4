// The realtime room: checkout and dashboard sockets fed from the outbox, and the hosted checkout page.
export { Realtime, type RealtimeSources, type FiguresSource, type SocketExtension } from './realtime.ts';
export type { CheckoutSource } from './checkout-namespace.ts';
export type { UserAuthenticator } from './merchant-namespace.ts';
export { chooseFanout, LocalFanout, PgNotifyFanout, RedisFanout, type Fanout } from './fanout.ts';
export { payerView, checkoutUpdate, dashboardUpdate, foundOrNull, PRIVATE_FIELDS, type PaymentJson } from './payer-view.ts';
export { routeEvent, AUDIENCE } from './routing.ts';
export * as socketWords from './events.ts';
