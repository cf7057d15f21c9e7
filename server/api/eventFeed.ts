// The event log read forward lives in the store (server/store/eventFeed.ts), where the metrics read it too.

export { FileEventFeed, LogEventFeed, type EventFeed } from '../store/eventFeed';
