export {
  GUARDRAIL_LIMITS,
  INTERCEPTION_EVENTS,
  PII_KINDS,
  guardrailsSchema,
  interceptorSchema,
  parseGuardrails,
  type CelConfig,
  type GuardrailsConfig,
  type GuardrailsInput,
  type GuardrailsIssue,
  type InterceptionEvent,
  type InterceptionPhase,
  type InterceptorConfig,
  type PiiConfig,
  type PiiKind,
  type WebhookConfig,
} from './guardrails-schema';
export type { CelCompiled, CelEngine, CelProgram, CelVariables } from './cel-engine';
export { CEL_LIMITS, celJsEngine } from './cel-js-engine';
export {
  EMPTY_GUARDRAILS,
  HOOK_POINTS,
  type ChainDeps,
  type CompiledGuardrails,
  type CompiledInterceptor,
  type HookPoint,
  type InterceptContext,
  type InterceptionRecord,
  type Verdict,
  type WebhookCaller,
} from './compiled-guardrails';
export { compileGuardrails, hookPoints, type CompileOptions, type CompileResult } from './compile-guardrails';
export { runChain, FAILED_CLOSED_REASON, type ChainOutcome } from './run-chain';
export { MAX_REDACT_DEPTH, RedactionDepthError, piiDetectors, redactDeep, redactString, type Redaction } from './pii-redactor';
export { ibanValid, luhn, type PiiDetector } from './pii-patterns';
export { globList, globMatch } from './glob';
export { WebhookAnswerError } from './webhook-interceptor';
