import { randomBytes } from 'node:crypto';
import { guardrailsSchema } from '@switchboard/guardrails';
import { SecretBox } from '@switchboard/secret-box';
import { guardrailSecretAad, openGuardrailSecrets } from './guardrail-secrets';

const SECRET = 'whsec_c2VhbGVkLWd1YXJkcmFpbC1zZWNyZXQ=';

describe('openGuardrailSecrets', () => {
  const box = new SecretBox(randomBytes(32));
  const open = (s: string, aad: string) => box.open(s, aad);
  const section = (secret: string) =>
    guardrailsSchema.parse({
      interceptors: [
        { name: 'pii', type: 'mutation', hook: { events: ['tools/call'] }, use: { builtin: 'pii' } },
        {
          name: 'screen',
          type: 'validation',
          hook: { events: ['tools/call'], phase: 'request' },
          use: { webhook: { url: 'https://guard.example/x', secret } },
        },
      ],
    });

  it('opens a secret the registry sealed for this tenant and interceptor, leaving the rest as it is', () => {
    const sealed = section(box.seal(SECRET, guardrailSecretAad('acme', 'screen')));
    const opened = openGuardrailSecrets(sealed, 'acme', open);
    expect(opened.interceptors[1]?.use).toEqual({
      webhook: { url: 'https://guard.example/x', secret: SECRET, timeoutMs: 2000, maxBytes: 65536 },
    });
    expect(opened.interceptors[0]).toBe(sealed.interceptors[0]);
  });

  it('passes a plain whsec_ secret through and refuses a blob sealed for another tenant', () => {
    expect(openGuardrailSecrets(section(SECRET), 'acme', open).interceptors[1]?.use).toMatchObject({ webhook: { secret: SECRET } });
    const foreign = section(box.seal(SECRET, guardrailSecretAad('beta', 'screen')));
    expect(() => openGuardrailSecrets(foreign, 'acme', open)).toThrow();
  });
});
