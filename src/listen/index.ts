// The room behind `gateway listen`: a socket namespace that hands test-mode webhook events to the CLI.
export { listenExtension, LISTEN_NAMESPACE, LISTEN_EVENT, LISTEN_READY, LISTEN_TEST_KEYS_ONLY, type ListenedEvent } from './namespace.ts';
