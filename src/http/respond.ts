// Moved to answer/ (one way to send an answer); kept until the services' imports follow.
export * from './answer/send.js';
export { etagMatches } from './answer/etag.js';
