// Moved to answer/ (one way to send an answer); kept until the services' imports follow.
export type { HeaderList } from './answer/head.js';
