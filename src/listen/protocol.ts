// What the /listen namespace and `gateway listen` say to each other: names and shapes only, so the
// CLI can speak it without loading the server's modules.
export const LISTEN_NAMESPACE = '/listen';
/** Server → CLI: `{id, type, body}`, body being the webhook's exact bytes. */
export const LISTEN_EVENT = 'webhook:event';
/** Server → CLI on connect: `{merchant_id}`. */
export const LISTEN_READY = 'listen:ready';
export const LISTEN_TEST_KEYS_ONLY = 'listen forwards test-mode events: use a test key';

export interface ListenedEvent {
  id: string;
  type: string;
  body: string;
}
