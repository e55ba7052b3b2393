export * from './mcp-target';
export * from './register-mcp-routes';
export { hostnameOf, originAllowed, hostAllowed } from './origin-policy';
export { StateSealer, type SealPurpose } from './state-sealer';
export { ClientRequestBroker, type ClientAnswer, type ClientAnswerRelay, type DeliveryOutcome, type PendingClientRequest } from './client-request-broker';
export { mintLegacySession, readLegacySession, type LegacySession } from './legacy-session';
export * from './graceful-shutdown';
export { ParkedCalls, type ParkRelay, type ParkResume, type ParkedAsk, type ParkedCallsOptions } from './parked-calls';
