import { isObject } from '../../../lib/json-object.js';
import { cleanProviderUsername } from './usernames.js';

// Reading the userinfo document. Providers disagree on field names (OIDC says
// `sub`/`preferred_username`/`picture`, GitHub `id`/`login`/`avatar_url`...), so
// docs/api.md lists the names to try, first present wins.

const SUBJECT_FIELDS = ['sub', 'id'] as const;
const USERNAME_FIELDS = ['preferred_username', 'login', 'username', 'name'] as const;
const AVATAR_FIELDS = ['picture', 'avatar_url', 'avatar'] as const;

export const MAX_SUBJECT_LENGTH = 255;
export const MAX_AVATAR_URL_LENGTH = 2048;

export interface ProviderIdentity {
  subject: string;
  username: string;
  /**
   * The userinfo field the username came from. `name` is free text anyone can set
   * to anything (a display name), so it never matches ADMIN_USERS.
   */
  usernameClaim: (typeof USERNAME_FIELDS)[number];
  /** An http(s) URL, or "" when the provider gave none we would show. */
  avatar: string;
}

/** The identity in a userinfo document, or null when its subject or username is missing. */
export function identityFrom(info: unknown): ProviderIdentity | null {
  if (!isObject(info)) return null;
  let subject: string | null = null;
  for (const field of SUBJECT_FIELDS) {
    subject = subjectFrom(info[field]);
    if (subject !== null) break;
  }
  let username: string | null = null;
  let usernameClaim: ProviderIdentity['usernameClaim'] = USERNAME_FIELDS[0];
  for (const field of USERNAME_FIELDS) {
    username = cleanProviderUsername(info[field]);
    usernameClaim = field;
    if (username !== null) break;
  }
  if (subject === null || username === null) return null;
  let avatar = '';
  for (const field of AVATAR_FIELDS) {
    avatar = avatarFrom(info[field]);
    if (avatar !== '') break;
  }
  return { subject, username, usernameClaim, avatar };
}

function subjectFrom(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value !== 'string') return null;
  const subject = value.trim();
  return subject !== '' && subject.length <= MAX_SUBJECT_LENGTH ? subject : null;
}

/** Only http(s) links are kept: an avatar ends up in <img src>, and javascript: or data: must not. */
function avatarFrom(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_AVATAR_URL_LENGTH) return '';
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
    if (url.username || url.password) return '';
    return url.href.length <= MAX_AVATAR_URL_LENGTH ? url.href : '';
  } catch {
    return '';
  }
}
