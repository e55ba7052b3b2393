export { connectUpstream } from './connect-upstream';
export { RELAYED_REQUESTS } from './upstream-connection';
export type {
  CompleteParams,
  ConnectUpstreamOptions,
  RelayedMethod,
  UpstreamCallOptions,
  UpstreamConnection,
  UpstreamEra,
  UpstreamListMethod,
  UpstreamTaskMethod,
  UpstreamTransport,
} from './upstream-connection';
export { listAll, MAX_LIST_PAGES } from './list-all';
export type { ListAllOptions, ListedUpstream } from './list-all';
export { classifyUpstreamFailure, discoveryKind, isLegacyRefusal, isModernRefusal } from './upstream-failure';
export type { UpstreamFailure, UpstreamFailureKind } from './upstream-failure';
export { UpstreamProtocolError, UpstreamRedirectedError, UpstreamResponseBrokenError } from './upstream-errors';
export { directEventCounts, directRequest, upstreamDispatcher } from './direct-request';
export type { UpstreamDispatcher } from './direct-request';
export type { DirectCallOptions, DirectSession } from './direct-session';
export { attributeCapabilities } from './attribute-capabilities';
export { discoveryCapabilities, PROBED_CAPABILITIES } from './discovery-capabilities';
export type { ProbedCapability } from './discovery-capabilities';
export { probeCapabilityRequirements } from './probe-capability-requirements';
export type { ConnectDeclaring } from './probe-capability-requirements';
export { modernTaskRequest } from './modern-task-request';
export type { ModernTaskMethod, ModernTaskTarget } from './modern-task-request';
