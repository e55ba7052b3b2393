import { idpTestAad } from './idp-test-aad';

describe('idpTestAad', () => {
  it('binds the blob to its tenant, part and test id', () => {
    const a = idpTestAad('acme', 'ticket', 'x1');
    expect(a).toBe('idp-test:ticket:acme:x1');
    expect(
      new Set([a, idpTestAad('acme', 'result', 'x1'), idpTestAad('globex', 'ticket', 'x1'), idpTestAad('acme', 'ticket', 'x2')]).size,
    ).toBe(4);
  });
});
