// Moved to answer/prepared.ts (servedStale); kept until the services' imports follow.
export function staleCacheStatus(secondsStale: number, detail: string): string {
  return `launcher-web; hit; ttl=-${Math.max(1, Math.ceil(secondsStale))}; detail=${detail}`;
}
