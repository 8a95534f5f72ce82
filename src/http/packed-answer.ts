// Moved to answer/ (one way to send an answer); kept until the services' imports follow.
export { packAnswer, unpackAnswer, type PackedAnswer } from './answer/prepared.js';
