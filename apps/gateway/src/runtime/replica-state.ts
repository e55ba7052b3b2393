import { ClientRequestBroker, ParkedCalls, StateSealer, TaskManager } from '@switchboard/mcp-http';
import { parseSecretsKeys } from '@switchboard/secret-box';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/config';
import { RedisAnswerRelay } from '../server-requests/redis-answer-relay';
import { RedisParkRelay } from '../server-requests/redis-park-relay';
import { DEFAULT_STREAM_RETENTION, RedisStreamEvents } from '../server-requests/redis-stream-events';
import { RedisTaskStore } from '../tasks/redis-task-store';
import { RedisUpstreamTaskIndex } from '../tasks/redis-upstream-task-index';
import { RedisTaskInputRelay } from '../upstream/redis-task-input-relay';

/**
 * What a call may need from another replica: sealing keys, clients' answers to server→client
 * requests, tasks, parked modern calls, resumable streams and task input. Shared through Redis
 * when REDIS_URL is set, else held by this process.
 */
export interface ReplicaState {
  sealer: StateSealer;
  clientRequests: ClientRequestBroker;
  tasks: TaskManager;
  parkedCalls: ParkedCalls;
  relay: RedisAnswerRelay | undefined;
  upstreamTaskIndex: RedisUpstreamTaskIndex | undefined;
  parkRelay: RedisParkRelay | undefined;
  taskInputRelay: RedisTaskInputRelay | undefined;
  streamEvents: RedisStreamEvents | undefined;
}

export function createReplicaState(config: GatewayConfig, logger: Logger): ReplicaState {
  const redis = config.REDIS_URL;
  // Short-lived state may live on a separate Redis; only when a shared one is configured at all.
  const ephemeral = redis ? (config.EPHEMERAL_REDIS_URL ?? redis) : undefined;
  const ns = config.REDIS_NAMESPACE;
  const sealer = createSealer(config, logger);
  const relay = redis ? new RedisAnswerRelay(redis, ns, logger) : undefined;
  const clientRequests = new ClientRequestBroker(sealer, {
    ...(config.GATEWAY_REPLICA_ID ? { replicaId: config.GATEWAY_REPLICA_ID } : {}),
    ...(relay ? { relay } : {}),
  });
  const replicaId = clientRequests.replicaId;
  // Modern calls whose (legacy) upstream asks the client mid-call wait here between retries.
  const parkRelay = redis ? new RedisParkRelay(redis, ns, logger, config.UPSTREAM_TIMEOUT_MS + 5_000) : undefined;
  return {
    sealer,
    clientRequests,
    tasks: createTasks(config, logger, replicaId),
    parkedCalls: new ParkedCalls(sealer, { replicaId, ...(parkRelay ? { relay: parkRelay } : {}), waitMs: config.UPSTREAM_TIMEOUT_MS }),
    relay,
    // Which caller owns which proxied upstream task (2025-11-25 tasks/list on any replica).
    upstreamTaskIndex: ephemeral ? new RedisUpstreamTaskIndex(ephemeral, ns, logger) : undefined,
    parkRelay,
    // A legacy upstream's task input held by one replica, listed and answered through any.
    taskInputRelay: ephemeral ? new RedisTaskInputRelay(ephemeral, ns, logger, replicaId) : undefined,
    // Legacy SSE streams resumable with Last-Event-ID on any replica (bounded Redis streams).
    streamEvents: ephemeral
      ? new RedisStreamEvents(ephemeral, ns, logger, {
          ...DEFAULT_STREAM_RETENTION,
          maxEventBytes: config.SSE_STREAM_MAX_BYTES,
          maxStreamBytes: config.SSE_STREAM_MAX_BYTES,
          maxTenantBytes: config.SSE_TENANT_MAX_BYTES,
        })
      : undefined,
  };
}

/** Replicas must agree on the sealing keys: GATEWAY_STATE_KEYS, else keys derived from the shared SECRETS_KEY. */
function createSealer(config: GatewayConfig, logger: Logger): StateSealer {
  const keys =
    config.GATEWAY_STATE_KEYS?.split(',').map((k) => Buffer.from(k.trim(), 'base64')) ??
    (config.SECRETS_KEY ? parseSecretsKeys(config.SECRETS_KEY) : undefined);
  if (keys) return new StateSealer(keys);
  logger.warn(
    'neither GATEWAY_STATE_KEYS nor SECRETS_KEY is set: sessions, server-to-client request ids and MRTR state are sealed with a per-process key, so they do not survive a restart or work across replicas',
  );
  return StateSealer.ephemeral();
}

/** The tasks extension: state in Redis (any replica answers tasks/get), else in this process. */
function createTasks(config: GatewayConfig, logger: Logger, replicaId: string): TaskManager {
  const store = config.REDIS_URL
    ? new RedisTaskStore(config.EPHEMERAL_REDIS_URL ?? config.REDIS_URL, config.REDIS_NAMESPACE, logger)
    : undefined;
  return new TaskManager({
    replicaId,
    taskAfterMs: config.TASKS_AFTER_MS,
    ttlMs: config.TASKS_TTL_MS,
    maxRunMs: config.TASKS_MAX_RUN_MS,
    maxLive: config.TASKS_MAX_LIVE,
    maxRetained: config.TASKS_MAX_RETAINED,
    maxTaskBytes: config.TASKS_MAX_TASK_BYTES,
    maxTenantBytes: config.TASKS_TENANT_MAX_BYTES,
    ...(store ? { store } : {}),
    onError: (err) => logger.warn({ err: (err as Error).message }, 'tasks: store failure'),
  });
}

/**
 * Connects the shared parts; each one that fails degrades to this replica only (logged).
 * Resolves whether stream events can be stored (resumable legacy streams).
 */
export async function attachReplicaState(
  state: ReplicaState,
  taskInputs: Parameters<RedisTaskInputRelay['attach']>[0],
  logger: Logger,
): Promise<boolean> {
  const degraded = (what: string) => (err: Error) => logger.warn({ err: err.message }, what);
  await state.relay
    ?.attach(state.clientRequests)
    .catch(degraded('server-to-client relay unavailable; answers are routed on this replica only'));
  await state.tasks.ready.catch(degraded('tasks: store unavailable; long calls are answered on their request'));
  await state.taskInputRelay
    ?.attach(taskInputs)
    .catch(degraded('task-input relay unavailable; task input is served on the replica holding it only'));
  await state.parkRelay
    ?.attach(state.parkedCalls)
    .catch(degraded('parked-call relay unavailable; modern retries are resumed on this replica only'));
  if (!state.streamEvents) return false;
  return state.streamEvents.connect().then(
    () => true,
    (err: Error) => (degraded('stream events store unavailable; legacy SSE streams are not resumable')(err), false),
  );
}

export async function closeReplicaState(state: ReplicaState): Promise<void> {
  await state.relay?.close();
  await state.tasks.close();
  await state.upstreamTaskIndex?.close();
  await state.parkRelay?.close();
  await state.taskInputRelay?.close();
  await state.streamEvents?.close();
}
