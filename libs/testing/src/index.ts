// Test-only harness pieces shared by several apps' e2e suites (never imported by production code:
// rule no-testing-in-production). Nothing here boots one of our apps; app harnesses stay in that app's e2e/support.
export { freePort } from './free-port';
export { parseForm, TestBrowser } from './browser';
export {
  approve,
  authorizeUrl,
  decodeJwt,
  obtainTokens,
  pkcePair,
  register,
  registerPublicClient,
  token,
  type AuthorizeParams,
  type Json,
} from './oauth-flow';
export { listenLoopback, readJsonBody, type LoopbackServer } from './loopback-server';
export { HangingCalls, serveStateless } from './sdk-upstream';
export { APP_CARD_URI, MCP_APP_MIME, startAppUpstream, type AppUpstream } from './app-upstream';
export { pollUntil } from './poll-until';
export { tamper } from './tamper';
export { TestUpstream, type SeenRequest, type UpstreamOptions } from './test-upstream';
export { sseEvents, sseMessages, type SseEvent } from './sse-events';
export {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  REDIS_URL,
  registerAndDiscover,
  REPO_ROOT,
  registryEnv,
  spawnApp,
  startGateway,
  startRegistry,
  testEnv,
  type ApiResult,
  type Proc,
} from './built-apps';
export { startEverythingServer } from './start-everything-server';
export { startPackagedServer, type PackagedServerLaunch, type ReferenceServer } from './start-packaged-server';
export { startSdkExampleServer } from './start-sdk-example-server';
