/** The platform event outbox: publish in the writer's transaction, read in commit-safe order, follow live. */
export { formatCursor, parseCursor, START_CURSOR, type NewPlatformEvent, type PlatformEvent } from './event.js';
export { eventRows, PlatformEventStream, type EventPage, type SubscribeOptions } from './event-stream.js';
export { PlatformEventConsumer } from './event-consumer.js';
export { NotificationListener } from './notification-listener.js';
export { publishEvent, publishEvents } from './publish-event.js';
export { EVENTS_CHANNEL, EVENTS_SCHEMA, migrateEvents } from './schema.js';
export { consumerPositions, reportConsumerPosition, type ConsumerPosition } from './consumer-positions.js';
export { createEventRetentionWorker, eventRetentionPasses, type EventRetention } from './event-retention.js';
