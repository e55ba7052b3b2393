import type { ApiClient } from '../api/api-client';
import type { GetGuardrailsResponse, LimitsView, Publication, Server, TenantAuthView, TenantSettings } from '@switchboard/admin-api';

/** The live tenant as the admin API shows it: what plans compare with and exports write. */
export interface LiveState {
  tenant: TenantSettings;
  auth: TenantAuthView;
  limits: LimitsView;
  guardrails: GetGuardrailsResponse;
  servers: Server[];
  publications: Publication[];
}

/** Reads the live tenant (six GETs in parallel; never a secret: the API does not return them). */
export async function readLiveState(client: ApiClient): Promise<LiveState> {
  const [tenant, auth, limits, guardrails, { servers }, { publications }] = await Promise.all([
    client.call('getTenant'),
    client.call('getTenantAuth'),
    client.call('getLimits'),
    client.call('getGuardrails'),
    client.call('listServers'),
    client.call('listPublications'),
  ]);
  return { tenant, auth, limits, guardrails, servers, publications };
}
