export { type LimitDecision, type LimiterMode, type LimitRule } from './limit-rule';
export { GCRA_SCRIPT } from './gcra-script';
export { MemoryLimiter, type MemoryLimiterOptions } from './memory-limiter';
export { SharedLimiter, type SharedLimiterOptions } from './shared-limiter';
export { limiterRedis } from './limiter-redis';
export { RATE_PLAN_BOUNDS, ratePlanSchema } from './rate-plan-schema';
export { effectiveRatePlan, type EffectiveRatePlan, type OperatorLimits } from './effective-rate-plan';
export { type LimitedRequest, RequestLimitRuleCache, requestLimitRules } from './request-limit-rules';
export { addressKey, subjectIdOf, subjectKindOf, type CallerAuth } from './subject';
export { rateLimitedAnswer, type RateLimitedAnswer } from './rate-limited-error';
export { parseTrustProxy, trustProxySchema } from './parse-trust-proxy';
export { CALL_LOG_BOUNDS, callLogPolicySchema } from './call-log-policy-schema';
export { USAGE_LATENCY_BUCKETS_MS, type UsageRecord, usageStreamKey } from './usage-record';
export {
  decodeUsageBatch,
  USAGE_BATCH_COLUMNS,
  USAGE_BATCH_FIELD,
  USAGE_RECORDS_FIELD,
  UsageBatchWriter,
  type UsageBatchHeader,
  type UsageEvent,
  type UsageSubjectKind,
} from './usage-batch';
export { DEFAULT_REDACT_KEYS, redactCaptured, redactCapturedSized, redactText, TOKEN_PATTERNS } from './redact-captured';
