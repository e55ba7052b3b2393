/**
 * What production mode checks in one secret: a SECRETS_KEY (raw key bytes) or a token/key
 * string; `fallback` names the development default an unset variable would fall back to.
 */
export type SecretKind = ({ kind: 'keys'; keys: Buffer[] | undefined } | { kind: 'token'; value: string | undefined }) & {
  fallback?: string;
};

/** Words that mark a value as a development default or a placeholder, wherever they appear. */
const PLACEHOLDER = /change[-_ ]?me|changeme|placeholder|example|dev[-_]|development|default|secret-key|insecure|test[-_]?token|^x+$/i;
const MIN_TOKEN_CHARS = 32;

/**
 * The production checks for secrets (SWITCHBOARD_ENV=production): each problem names the variable.
 * A key must be present and look random: the placeholders and development keys in this
 * repository are readable text, and 32 random bytes are all printable with odds below 1e-14, so
 * a key that decodes to printable ASCII, or with fewer than 16 distinct bytes, is refused. A token
 * must be present, at least 32 characters, and free of placeholder words (`CHANGE-ME`,
 * `dev-…`, `example`, …).
 */
export function productionSecretProblems(secrets: Record<string, SecretKind>): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(secrets)) {
    if (s.kind === 'keys') {
      if (!s.keys || s.keys.length === 0) {
        problems.push(`${name}: is required in production${unsetFallsBackTo(s)} (openssl rand -base64 32)`);
        continue;
      }
      s.keys.forEach((key, i) => {
        const which = s.keys!.length > 1 ? `key ${i + 1}` : 'the key';
        const printable = key.every((b) => b >= 0x20 && b < 0x7f);
        if (printable || new Set(key).size < 16)
          problems.push(
            `${name}: ${which} is a development or placeholder key (readable text, not random bytes); generate one with openssl rand -base64 32`,
          );
      });
    } else if (!s.value) problems.push(`${name}: is required in production${unsetFallsBackTo(s)}`);
    else if (s.value.length < MIN_TOKEN_CHARS)
      problems.push(`${name}: must be at least ${MIN_TOKEN_CHARS} characters in production (openssl rand -base64 32)`);
    else if (PLACEHOLDER.test(s.value))
      problems.push(`${name}: looks like a placeholder or development value; set a random one (openssl rand -base64 32)`);
  }
  return problems;
}

function unsetFallsBackTo(s: SecretKind): string {
  return s.fallback ? `; unset, it falls back to ${s.fallback}` : '';
}
