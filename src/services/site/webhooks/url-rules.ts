import { validationFailed } from '../../../http/errors.js';
import { isValidAceLabel } from '../../../lib/punycode-label.js';
import { hostAddress, isPublicAddress } from './address-policy.js';

// What a webhook URL may be, checked when it is set (PUT /apps/api/webhook). A host
// name is only resolved at delivery, where every address it resolves to is checked
// again (delivery-dispatcher.ts): names can change what they point to.

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * The URL as stored (WHATWG-normalised), or 400 VALIDATION_FAILED on field `url`.
 * `ports`: the ports it may name (443, 8443 and WEBHOOK_ALLOWED_PORTS).
 */
export function validateWebhookUrl(value: unknown, ports: readonly number[]): string {
  const refuse = (why: string) => validationFailed('url', why);
  if (typeof value !== 'string' || value.trim() === '') throw refuse('url is required: an https:// URL');
  if (value.length > MAX_WEBHOOK_URL_LENGTH) throw refuse(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw refuse('url is not a valid URL');
  }
  if (url.protocol !== 'https:') throw refuse('url must be an https:// URL');
  if (url.username !== '' || url.password !== '') throw refuse('url must not contain a user name or password');
  if (url.hostname === '') throw refuse('url must name a host');
  if (!url.hostname.split('.').every(isValidAceLabel)) throw refuse('url is not a valid URL: a host label is not valid IDNA');
  // The URL parser drops :443, https' default, from `port`.
  if (!ports.includes(url.port === '' ? 443 : Number(url.port))) throw refuse(`url's port must be one of ${ports.join(', ')}`);
  const address = hostAddress(url.hostname);
  if (address !== undefined && !isPublicAddress(address)) throw refuse('url must not point to a private, loopback, link-local or otherwise non-public address');
  // RFC 6761: these names are loopback by definition; refused now rather than at delivery.
  const name = url.hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) throw refuse('url must not point to localhost');
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) throw refuse(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  return url.href;
}
