import { LOG_LEVELS, type LogLevel } from '../lib/log.js';
import { MAX_TRUSTED_HOPS } from '../http/client-ip.js';

// Reading environment variables: each value checked at start-up, a bad one stops
// the process with one line naming the variable (ConfigError). The settings of
// each service are in src/services/site/settings.ts and src/services/imghost/settings.ts; those
// both read are in ./shared.ts.

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;
/** A variable's trimmed value, or undefined when it is unset or blank. */
export type EnvReader = (name: string) => string | undefined;

export function envReader(env: Env): EnvReader {
  return (name) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
}

/** 1-512 visible ASCII characters: what a secret sent in a header may be. */
export function secretFrom(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && !/^[\x21-\x7E]{1,512}$/.test(value)) throw new ConfigError(name, 'must be 1-512 visible ASCII characters');
  return value;
}

/** A positive whole number of bytes (at most 12 digits). */
export function byteCountFrom(name: string, text: string): number {
  if (!/^\d{1,12}$/.test(text) || Number(text) < 1) {
    throw new ConfigError(name, `must be a positive whole number of bytes (got "${text}")`);
  }
  return Number(text);
}

export function portFrom(name: string, value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new ConfigError(name, `must be a port number from 0 to 65535 (got "${value}")`);
  }
  return Number(value);
}

export function urlFrom(name: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(name, 'is not a valid URL');
  }
}

/** An http(s) URL, returned without a trailing slash so paths can be appended. */
export function httpUrl(name: string, value: string): string {
  const url = urlFrom(name, value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http:// or https:// URL');
  if (url.username || url.password) throw new ConfigError(name, 'must not contain a user name or password');
  return url.href.replace(/\/+$/, '');
}

export function logLevelFrom(value: string): LogLevel {
  const level = LOG_LEVELS.find((known) => known === value.toLowerCase());
  if (level === undefined) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${value}")`);
  return level;
}

/** TRUST_PROXY: false (0), true (1: one proxy), or the number of proxies in the chain. */
export function trustedHopsFrom(value: string): number {
  if (/^\d{1,2}$/.test(value) && Number(value) <= MAX_TRUSTED_HOPS) return Number(value);
  try {
    return booleanFrom('TRUST_PROXY', value) ? 1 : 0;
  } catch {
    throw new ConfigError('TRUST_PROXY', `must be true, false or the number of trusted proxies, 0 to ${MAX_TRUSTED_HOPS} (got "${value}")`);
  }
}

export function booleanFrom(name: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1' || lower === 'yes') return true;
  if (lower === 'false' || lower === '0' || lower === 'no') return false;
  throw new ConfigError(name, `must be true or false (got "${value}")`);
}
