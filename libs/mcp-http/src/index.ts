export type { McpTarget } from './mcp-target';
export type { AuthDenied, AuthGranted, AuthOutcome } from './auth-outcome';
export type { AdmitRefusal, AdmitRequest, EdgePolicy } from './edge-policy';
export type { InvokeContext } from './invoke-context';
export type { UpstreamCompletion, UpstreamInvoker, UpstreamTaskAnswer, UpstreamTaskRequest } from './upstream-invoker';
export type { McpHttpOptions } from './mcp-http-options';
export type { McpObserver, McpRefusal, McpRequestInfo, McpRequestObservation } from './mcp-observer';
export { McpEndpoint, type McpEndpointOptions } from './mcp-endpoint';
export { EdgeCall, type EdgeLogger } from './edge-call';
export { BATCH_DEFAULTS, registerMcpRoutes } from './register-mcp-routes';
export { hostnameOf, originAllowed, hostAllowed } from './origin-policy';
export { DEFAULT_SEAL_TTL_S, StateSealer, type SealCheck, type SealPurpose, type SealRefusal } from './state-sealer';
export {
  ClientRequestBroker,
  type ClientAnswer,
  type ClientAnswerRelay,
  type DeliveryOutcome,
  type PendingClientRequest,
} from './client-request-broker';
export { mintLegacySession, readLegacySession, type LegacySession } from './legacy-session';
export { type DrainResult, GracefulShutdown, type GracefulShutdownOptions } from './graceful-shutdown';
export { ShutdownGate } from './shutdown-gate';
export { listenAndAnnounce, runServiceMain, type ListeningApp } from './service-main';
export {
  DEFAULT_MIGRATION_LOCK_TIMEOUT_MS,
  MIGRATION_LOCK_ID,
  MigrationLockTimeoutError,
  withMigrationLock,
  type MigrationLockOptions,
  type SqlSession,
} from './migration-lock';
export {
  TaskManager,
  TASKS_EXTENSION,
  TASK_METHODS,
  declaresTasks,
  taskKey,
  type TaskManagerOptions,
  type TaskScope,
  type TaskWork,
  type TaskInput,
  type CreateTaskResult,
} from './task-manager';
export { MemoryTaskStore } from './memory-task-store';
export type { StoredTask, TaskCaps, TaskCreateRefusal, TaskStatus, TaskStore, TaskView, TaskWriteOutcome } from './task-store';
export {
  DEFAULT_NOTIFY_MAX_BYTES_PER_CALL,
  DEFAULT_TASK_BYTE_CAPS,
  TASK_RESERVE_BYTES,
  overBudget,
  overBudgetError,
  type ByteBudget,
  type TaskByteCaps,
} from './byte-budgets';
export { ParkedCalls, type ParkRelay, type ParkResume, type ParkedAsk, type ParkedCallsOptions } from './parked-calls';
export type { StreamEventStore, StoredStreamEvent } from './stream-event-store';
export type { ResumableStream } from './response-channel';
export { SplicedResult, answerBuffer, answerLength, type EncodedAnswer } from './encoded-answer';
export { STREAM_RESUME_METHOD, resumeScope } from './resume-stream';
export { MemoryUpstreamTaskIndex, UPSTREAM_TASK_INDEX_MAX, callerKey, type UpstreamTaskIndex } from './upstream-task-index';
export { requireClientCapabilities } from './require-client-capabilities';
export { refusesWithoutTasks } from './task-wire';
