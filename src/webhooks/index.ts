// The webhooks room's door: endpoints, deliveries, the worker, and what other rooms read.
export * from './core.ts';
export { WebhooksService, NO_URL_SET_FIRST, PING_MESSAGE, type WebhooksOptions } from './service.ts';
export { registerWebhookRoutes, STOREFRONT_CANNOT_CHANGE } from './routes.ts';
export { BEFORE_MESSAGE, countFailedDeliveries, deliveriesForPayment, DELIVERY_EVENT } from './delivery-store.ts';
export { deliveryJson } from './delivery-json.ts';
export { webhookJson, WEBHOOK_UPDATE_EVENT, type Webhook } from './endpoints.ts';
export { WEBHOOK_EVENT_TYPES, routeEvent } from './routing.ts';
export { deliveries, webhooks, DELIVERY_STATUSES, type DeliveryRow, type DeliveryStatus, type HistoryEntry } from './schema.ts';
export { SecretBox } from './secret-box.ts';

// Messages the OpenAPI document (src/openapi/routes) lists, imported there rather than typed again.
export { NOTE_MESSAGE } from './delivery-store.ts';
export { COULD_NOT_REMOVE, COULD_NOT_ROLL, COULD_NOT_SET } from './endpoints.ts';
export { URL_DOES_NOT_RESOLVE, URL_NOT_ABSOLUTE, URL_NOT_HTTPS, URL_NOT_PUBLIC, URL_REQUIRED } from './url-policy.ts';
