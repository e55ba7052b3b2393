// A stand-in authorization server for the bench: one ES256 key, its JWKS served on loopback
// at `<base>/t/<tenant>/jwks` (the path the gateway derives from AUTH_PUBLIC_URL), and one
// access token shaped exactly like apps/auth's (typ at+jwt, iss, aud, tid, client_id, scope).
// The real service needs Postgres; the gateway only ever sees the JWKS and the token.
import { createServer } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';

/** Starts the JWKS server (unref'd: it never keeps the bench alive) and mints a 1-hour token. */
export async function startAuthFixture({ tenant, audience }) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'ES256', use: 'sig' };
  const server = createServer((req, res) => {
    if (req.url === `/t/${tenant}/jwks`) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  const baseUrl = `http://127.0.0.1:${server.address().port}`;
  const token = await new SignJWT({ tid: tenant, client_id: 'bench-client', scope: 'mcp:tools' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid })
    .setIssuer(`${baseUrl}/t/${tenant}`)
    .setAudience(audience)
    .setSubject(`${tenant}|bench-user`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .setJti('bench')
    .sign(privateKey);
  return { baseUrl, token, close: () => server.close() };
}
