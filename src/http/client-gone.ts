// The errors a stream gives when the other end of the connection went away: the
// client closed it mid-body or mid-answer. An ordinary event, not a failure of ours.

export function isClientGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE';
}
