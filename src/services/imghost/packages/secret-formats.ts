// The credential formats a package must not carry: each is the issuer's own
// published shape (a fixed prefix, a length, an alphabet), bounded on both sides
// so that a longer run of the same characters is not taken for one. A finding
// names its kind, never the text: the answer goes to the site, its log and its
// review page.

export interface SecretFormat {
  /** What a person is told: "GitHub token". */
  kind: string;
  /** Global; every quantifier bounded, so a match is at most MAX_SECRET_LENGTH characters. */
  pattern: RegExp;
  /** Whether the text matched is a real-looking value rather than an example or a placeholder. */
  plausible?: (match: string) => boolean;
}

/** The longest text any pattern can match; the scanner keeps more than this across chunk boundaries. */
export const MAX_SECRET_LENGTH = 800;

// Token characters on either side mean the match is part of a longer word.
const before = '(?<![A-Za-z0-9_-])';
const after = '(?![A-Za-z0-9_-])';
const bounded = (body: string) => new RegExp(`${before}${body}${after}`, 'g');

/**
 * A value of one repeated character or a handful ("ghp_xxxx...", "AKIA0000...")
 * is a placeholder in documentation; random tokens of 16 characters or more
 * have far more than 6 different ones.
 */
function varied(rest: string): boolean {
  return new Set(rest).size >= 6;
}

const afterPrefix = (prefixLength: number) => (match: string) => varied(match.slice(prefixLength));

/**
 * A Discord bot token starts with the bot's user id (a snowflake of 17 to 20
 * digits) in unpadded base64: decoded, it must be those digits, which no other
 * three-part dotted string is (a JWT starts with "eyJ").
 */
function discordUserId(match: string): boolean {
  const id = Buffer.from(match.slice(0, match.indexOf('.')), 'base64url').toString('latin1');
  return /^[1-9][0-9]{16,19}$/.test(id);
}

export const SECRET_FORMATS: readonly SecretFormat[] = [
  // Classic and OAuth, user-to-server, server-to-server and refresh tokens: 36 base62 characters today; GitHub allows for longer.
  { kind: 'GitHub token', pattern: bounded('gh[pousr]_[A-Za-z0-9]{36,251}'), plausible: afterPrefix(4) },
  { kind: 'GitHub token', pattern: bounded('github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,221}'), plausible: afterPrefix(11) },
  // Personal, and the routable form, which goes on after a dot.
  { kind: 'GitLab token', pattern: bounded('glpat-[A-Za-z0-9_-]{20,300}'), plausible: afterPrefix(6) },
  {
    kind: 'AWS access key',
    pattern: bounded('(?:AKIA|ASIA)[A-Z0-9]{16}'),
    // AWS's documentation writes AKIAIOSFODNN7EXAMPLE, which SDKs and READMEs copy.
    plausible: (match) => !match.endsWith('EXAMPLE') && varied(match.slice(4)),
  },
  // Bot, user, workspace-app and legacy tokens: digit groups, then the secret part.
  { kind: 'Slack token', pattern: bounded('xox[bpas]-(?:[0-9]{1,20}-){1,4}[A-Za-z0-9]{8,250}'), plausible: afterPrefix(5) },
  { kind: 'Slack token', pattern: bounded('xapp-[0-9]{1,3}-[A-Z0-9]{6,20}-[0-9]{6,20}-[A-Za-z0-9]{20,250}'), plausible: afterPrefix(5) },
  {
    kind: 'Slack webhook',
    pattern: bounded('hooks\\.slack\\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,14}/[A-Z0-9]{6,14}/(?:[0-9]{1,20}/)?[A-Za-z0-9]{16,120}'),
    plausible: (match) => varied(match.slice(match.lastIndexOf('/') + 1)),
  },
  { kind: 'Discord bot token', pattern: bounded('[MNO][A-Za-z0-9_-]{22,26}\\.[A-Za-z0-9_-]{6,7}\\.[A-Za-z0-9_-]{27,40}'), plausible: discordUserId },
  {
    kind: 'Discord webhook',
    pattern: bounded('(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api(?:/v[0-9]{1,2})?/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,80}'),
    plausible: (match) => varied(match.slice(match.lastIndexOf('/') + 1)),
  },
  { kind: 'npm token', pattern: bounded('npm_[A-Za-z0-9]{36}'), plausible: afterPrefix(4) },
  {
    // The key's header, its own header lines (Proc-Type, DEK-Info) if any, then
    // base64: a parser's constant "-----BEGIN RSA PRIVATE KEY-----" alone is
    // not a key. Line ends may be real or "\n" inside a string literal.
    kind: 'PEM private key',
    pattern: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[rn]){1,8}(?:[A-Za-z-]{1,20}: ?[^\r\n\\]{1,120}(?:\s|\\[rn]){1,8}){0,4}[A-Za-z0-9+/=]{40}/g,
  },
];
