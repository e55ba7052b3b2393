import { CHECK_TITLES, type CheckId } from './check-titles';
import { result, type CheckResult } from './check-result';
import { unreachable } from './check-modern';
import { CHATGPT, CLAUDE, LEGACY_VERSION } from './client-profiles';
import type { HttpAnswer, Probe } from './probe';

function t(id: CheckId): string {
  return CHECK_TITLES[id];
}

/** `resource_metadata="…"` of a `WWW-Authenticate: Bearer …` challenge. */
export function resourceMetadataUrl(header: string | null): string | undefined {
  if (!header || !/^\s*Bearer\b/i.test(header)) return undefined;
  const m = /resource_metadata\s*=\s*(?:"([^"]*)"|([^\s,]+))/i.exec(header);
  return m ? (m[1] ?? m[2]) : undefined;
}

function jsonObject(answer: HttpAnswer): Record<string, unknown> | undefined {
  if (answer.status !== 200) return undefined;
  try {
    const v = JSON.parse(answer.text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function brief(answer: HttpAnswer): string {
  const body = answer.text.replace(/\s+/g, ' ').trim().slice(0, 120);
  return `HTTP ${answer.status}${body ? ` ("${body}")` : ''}`;
}

/** RFC 8414 / OIDC discovery URLs clients try for an issuer, in the 2025-11-25 order. */
export function asMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (!path) return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** The outcome of the unauthenticated probe and the OAuth chain. */
export interface OAuthOutcome {
  /** The endpoint answered 401: OAuth is required before any MCP request. */
  protectedEndpoint: boolean;
  checks: CheckResult[];
}

/**
 * (e) What Claude and ChatGPT do when the connector URL answers 401: read the challenge,
 * fetch PRM (its `resource` must equal the connector URL exactly), find the authorization
 * server's metadata, check PKCE S256 and a registration method, and register with DCR the
 * way each client does. An endpoint that does not answer 401 is not applicable (one skipped check).
 */
export async function checkOAuth(probe: Probe): Promise<OAuthOutcome> {
  let first: HttpAnswer;
  try {
    first = await probe.rpc(
      'initialize',
      { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLAUDE.clientInfo },
      { ...CLAUDE.headers },
    );
  } catch (err) {
    return { protectedEndpoint: false, checks: [unreachable('auth-challenge', t('auth-challenge'), err)] };
  }
  if (first.status !== 401) {
    // Not applicable rather than passed: an open endpoint has no challenge to get right, and counting it as a pass overstated the report.
    return {
      protectedEndpoint: false,
      checks: [
        result(
          'auth-challenge',
          t('auth-challenge'),
          'skip',
          `the endpoint answers without authorization (HTTP ${first.status}); Claude and ChatGPT connect authless, so the OAuth chain does not apply`,
        ),
      ],
    };
  }
  // Each step adds its checks and returns what the next one needs, or undefined when the chain stops there.
  const checks: CheckResult[] = [];
  const prmUrl = checkChallenge(probe, first, checks);
  const issuer = prmUrl && (await checkProtectedResource(probe, prmUrl, checks));
  const as = issuer && (await checkAuthorizationServer(probe, issuer, checks));
  if (as) await checkRegistrations(probe, as, checks);
  return { protectedEndpoint: true, checks };
}

/** 1. The challenge: the PRM URL it names (or the well-known fallback clients use). */
function checkChallenge(probe: Probe, first: HttpAnswer, checks: CheckResult[]): string | undefined {
  const endpoint = new URL(probe.endpoint);
  const header = first.headers.get('www-authenticate');
  const named = resourceMetadataUrl(header);
  if (named) {
    try {
      probe.advertise(named);
      checks.push(result('auth-challenge', t('auth-challenge'), 'pass', `401 with WWW-Authenticate resource_metadata="${named}"`));
      return named;
    } catch {
      checks.push(
        result(
          'auth-challenge',
          t('auth-challenge'),
          'fail',
          `the challenge's resource_metadata "${named}" is not a valid URL`,
          'Send WWW-Authenticate: Bearer resource_metadata="<absolute https URL of your PRM>" on 401.',
        ),
      );
      return undefined;
    }
  }
  const prmUrl = `${endpoint.origin}/.well-known/oauth-protected-resource${endpoint.pathname.replace(/\/+$/, '')}`;
  probe.advertise(prmUrl);
  checks.push(
    result(
      'auth-challenge',
      t('auth-challenge'),
      'warn',
      `401 without resource_metadata in WWW-Authenticate (${header ? `"${header.slice(0, 120)}"` : 'no WWW-Authenticate header'}); clients fall back to ${prmUrl}`,
      `Send WWW-Authenticate: Bearer resource_metadata="${prmUrl}" on 401.`,
    ),
  );
  return prmUrl;
}

/** 2. Protected resource metadata: its resource and the first authorization server it lists. */
async function checkProtectedResource(probe: Probe, prmUrl: string, checks: CheckResult[]): Promise<string | undefined> {
  let prm: Record<string, unknown> | undefined;
  try {
    const answer = await probe.request(prmUrl, { method: 'GET', headers: { accept: 'application/json' } });
    prm = jsonObject(answer);
    if (!prm) {
      checks.push(
        result(
          'prm-resource',
          t('prm-resource'),
          'fail',
          `protected resource metadata at ${prmUrl} answered ${brief(answer)}, not a JSON document`,
          `Serve RFC 9728 metadata at ${prmUrl} (and keep /.well-known/* outside WAF challenges).`,
        ),
      );
      return undefined;
    }
  } catch (err) {
    checks.push(unreachable('prm-resource', t('prm-resource'), err));
    return undefined;
  }
  const resource = prm.resource;
  if (resource === probe.endpoint) {
    checks.push(result('prm-resource', t('prm-resource'), 'pass', `PRM resource is exactly ${probe.endpoint}`));
  } else {
    checks.push(
      result(
        'prm-resource',
        t('prm-resource'),
        'fail',
        typeof resource === 'string'
          ? `PRM resource is ${resource} but the connector URL is ${probe.endpoint}; claude.ai rejects the metadata and falls back to /register on the MCP host`
          : `PRM at ${prmUrl} has no resource (the connector URL is ${probe.endpoint})`,
        `Set the protected resource metadata's resource to exactly ${probe.endpoint} (same scheme, host, port and path, no trailing slash), and issue tokens with that audience.`,
      ),
    );
  }
  const servers = Array.isArray(prm.authorization_servers)
    ? prm.authorization_servers.filter((s): s is string => typeof s === 'string' && s.length > 0)
    : [];
  if (servers.length === 0) {
    checks.push(
      result(
        'prm-authorization-servers',
        t('prm-authorization-servers'),
        'fail',
        `PRM at ${prmUrl} lists no authorization_servers`,
        'List your authorization server issuer in authorization_servers (RFC 9728 requires at least one).',
      ),
    );
    return undefined;
  }
  checks.push(result('prm-authorization-servers', t('prm-authorization-servers'), 'pass', `authorization_servers: ${servers.join(', ')}`));
  return servers[0];
}

/** 3. Authorization server metadata (RFC 8414 or OIDC discovery), its issuer, PKCE and registration method. */
async function checkAuthorizationServer(probe: Probe, issuer: string, checks: CheckResult[]): Promise<Record<string, unknown> | undefined> {
  let candidates: string[];
  try {
    candidates = asMetadataUrls(issuer);
  } catch {
    checks.push(
      result(
        'as-metadata',
        t('as-metadata'),
        'fail',
        `authorization server "${issuer}" is not a URL`,
        'List the issuer URL of your authorization server in PRM authorization_servers.',
      ),
    );
    return undefined;
  }
  const found = await findMetadata(probe, candidates);
  if (!found.as) {
    checks.push(
      result(
        'as-metadata',
        t('as-metadata'),
        'fail',
        `no authorization server metadata for ${issuer}: ${found.tried.join('; ')}`,
        `Publish RFC 8414 metadata at ${candidates[0]} (or OIDC discovery at ${candidates[1]}).`,
      ),
    );
    return undefined;
  }
  const { as, url } = found;
  if (as.issuer !== issuer) {
    checks.push(
      result(
        'as-metadata',
        t('as-metadata'),
        'fail',
        `metadata at ${url} says issuer ${String(as.issuer)} but PRM lists ${issuer}; clients reject the mismatch (RFC 8414 §3.3)`,
        'Make the issuer in the metadata equal the authorization_servers entry in PRM.',
      ),
    );
  } else {
    checks.push(result('as-metadata', t('as-metadata'), 'pass', `metadata found at ${url}`));
  }
  checkClientSupport(as, checks);
  return as;
}

/** What the metadata must offer Claude and ChatGPT: PKCE with S256 and a way to register (CIMD or DCR). */
function checkClientSupport(as: Record<string, unknown>, checks: CheckResult[]): void {
  const methods = Array.isArray(as.code_challenge_methods_supported) ? as.code_challenge_methods_supported : [];
  checks.push(
    methods.includes('S256')
      ? result('as-pkce', t('as-pkce'), 'pass', 'code_challenge_methods_supported includes S256')
      : result(
          'as-pkce',
          t('as-pkce'),
          'fail',
          `code_challenge_methods_supported is ${JSON.stringify(as.code_challenge_methods_supported ?? null)}; clients refuse an authorization server without S256`,
          'Support PKCE with S256 and list it in code_challenge_methods_supported.',
        ),
  );
  const cimd = as.client_id_metadata_document_supported === true;
  const registration = typeof as.registration_endpoint === 'string' ? as.registration_endpoint : undefined;
  if (cimd || registration) {
    checks.push(
      result(
        'as-registration',
        t('as-registration'),
        'pass',
        [cimd ? 'client ID metadata documents (CIMD)' : '', registration ? `dynamic client registration at ${registration}` : '']
          .filter(Boolean)
          .join(' and '),
      ),
    );
  } else {
    checks.push(
      result(
        'as-registration',
        t('as-registration'),
        'fail',
        'the metadata advertises neither client_id_metadata_document_supported nor a registration_endpoint; Claude and ChatGPT cannot register',
        'Support CIMD (client_id_metadata_document_supported: true) or dynamic client registration (registration_endpoint).',
      ),
    );
  }
}

/** The first candidate URL that answers a JSON metadata document, and what each tried one answered. */
async function findMetadata(probe: Probe, candidates: string[]): Promise<{ as?: Record<string, unknown>; url: string; tried: string[] }> {
  const tried: string[] = [];
  for (const url of candidates) {
    probe.advertise(url);
    try {
      const answer = await probe.request(url, { method: 'GET', headers: { accept: 'application/json' } });
      const as = jsonObject(answer);
      tried.push(`${url} → ${as ? 'found' : brief(answer)}`);
      if (as) return { as, url, tried };
    } catch (err) {
      tried.push(`${url} → ${(err as Error).message}`);
    }
  }
  return { url: '', tried };
}

/** 4. Dynamic client registration, as each client sends it. */
async function checkRegistrations(probe: Probe, as: Record<string, unknown>, checks: CheckResult[]): Promise<void> {
  const cimd = as.client_id_metadata_document_supported === true;
  const registration = typeof as.registration_endpoint === 'string' ? as.registration_endpoint : undefined;
  const clients = [
    {
      id: 'dcr-claude' as const,
      name: 'Claude',
      metadata: {
        client_name: 'Claude',
        redirect_uris: [...CLAUDE.redirectUris],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    },
    {
      id: 'dcr-chatgpt' as const,
      name: 'ChatGPT',
      metadata: {
        client_name: 'ChatGPT',
        redirect_uris: [...CHATGPT.redirectUris],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'web',
      },
    },
  ];
  for (const c of clients) {
    if (!registration) {
      checks.push(
        result(
          c.id,
          t(c.id),
          'skip',
          cimd ? `no registration_endpoint; ${c.name} uses CIMD with this authorization server` : 'no registration_endpoint',
        ),
      );
      continue;
    }
    checks.push(await register(probe, registration, c.id, c.name, c.metadata));
  }
}

async function register(
  probe: Probe,
  endpoint: string,
  id: 'dcr-claude' | 'dcr-chatgpt',
  who: string,
  metadata: Record<string, unknown>,
): Promise<CheckResult> {
  try {
    probe.advertise(endpoint);
    const answer = await probe.request(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(metadata),
    });
    let body: Record<string, unknown> | undefined;
    try {
      const v = JSON.parse(answer.text) as unknown;
      body = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
    } catch {
      body = undefined;
    }
    if ((answer.status !== 201 && answer.status !== 200) || typeof body?.client_id !== 'string') {
      const why =
        typeof body?.error === 'string'
          ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`
          : brief(answer);
      return result(
        id,
        t(id),
        'fail',
        `registration with redirect_uris ${JSON.stringify(metadata.redirect_uris)} was refused (HTTP ${answer.status}, ${why})`,
        `Accept public clients (token_endpoint_auth_method none) with ${who}'s redirect URIs ${(metadata.redirect_uris as string[]).join(' and ')}.`,
      );
    }
    const uri = typeof body.registration_client_uri === 'string' ? body.registration_client_uri : undefined;
    const token = typeof body.registration_access_token === 'string' ? body.registration_access_token : undefined;
    // Clean up the probe's client when the server offers RFC 7592 management.
    if (uri && token) {
      try {
        probe.advertise(uri);
        await probe.request(uri, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
      } catch {
        // Best effort: a leftover test client is harmless.
      }
    }
    if (!uri) {
      return result(
        id,
        t(id),
        'warn',
        `registered client ${body.client_id} but the response has no registration_client_uri; claude.ai has been reported to stall on such responses`,
        'Return registration_client_uri (and registration_access_token) from the registration endpoint (RFC 7592).',
      );
    }
    return result(id, t(id), 'pass', `registered client ${body.client_id}; registration_client_uri returned`);
  } catch (err) {
    return unreachable(id, t(id), err);
  }
}
