export { appendEvent, appendEvents, QUEUE_INSERTED_EVENTS, type EventHead, type NewEvent, type StoredEvent } from './outbox.ts';
export { OutboxDispatcher, type Subscriber } from './dispatcher.ts';
export { events } from './schema.ts';
export { ANNOUNCE_MAX_BYTES, type Announced, type Announcement } from './announce.ts';
