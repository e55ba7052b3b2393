export { connectUpstream, RELAYED_REQUESTS } from './connect-upstream';
export type { ConnectUpstreamOptions, RelayedMethod, UpstreamCallOptions, UpstreamConnection, UpstreamEra, UpstreamListMethod, UpstreamTaskMethod, UpstreamTransport } from './connect-upstream';
export { listAll, MAX_LIST_PAGES } from './list-all';
export type { ListAllOptions, ListedUpstream } from './list-all';
export { isLegacyRefusal, isModernRefusal, upstreamFailure } from './upstream-failure';
export type { UpstreamFailure } from './upstream-failure';
export { directRequest, upstreamDispatcher, UpstreamProtocolError, UpstreamRedirectedError, UpstreamResponseBrokenError } from './direct-request';
export type { DirectCallOptions, DirectSession, UpstreamDispatcher } from './direct-request';
