import { createReadStream, type ReadStream } from 'node:fs';

/** Read-ahead per response; 64 KiB matches the socket's own buffering. */
export const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Opens a file for streaming before any header is sent, so a file deleted by hand
 * (or evicted from the cache) is still a clean answer: null for ENOENT.
 */
export function openFile(path: string, range?: { start: number; end: number }): Promise<ReadStream | null> {
  return new Promise((resolve, reject) => {
    const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES, ...range });
    const onError = (error: NodeJS.ErrnoException) => {
      stream.off('open', onOpen);
      if (error.code === 'ENOENT') resolve(null);
      else reject(error);
    };
    const onOpen = () => {
      stream.off('error', onError);
      // Until pipeline() takes over, an error must not be an uncaught 'error' event;
      // pipeline still sees it (the stream is then errored) and rejects.
      stream.on('error', ignore);
      resolve(stream);
    };
    stream.once('error', onError);
    stream.once('open', onOpen);
  });
}

const ignore = () => {};
