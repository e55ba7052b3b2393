import type { ApiClient } from '../api/api-client';
import type { FieldChange } from './compare';

export type StepAction = 'create' | 'update' | 'delete';

/** What executing a step needs: the API, the environment (for secrets) and the discoveries apply started. */
export interface ApplyContext {
  client: ApiClient;
  env: NodeJS.ProcessEnv;
  /** Servers whose discovery this apply started: their publications wait for it. */
  discovering: Set<string>;
  /** How long to wait for one discovery. */
  discoveryWaitMs: number;
}

/**
 * One change of a plan: what it touches, the fields that differ (secret values never: a secret
 * shows as the name of its environment variable), whether it starts a discovery, and how to apply it.
 */
export interface PlanStep {
  action: StepAction;
  /** `tenant`, `auth`, `limits`, `server weather`, `publications of weather`. */
  target: string;
  changes: FieldChange[];
  /** The server whose discovery this step starts. */
  discovers?: string;
  /** Environment variables the step reads secrets from (checked before anything is applied). */
  secrets: Array<{ env: string; field: string }>;
  execute: (ctx: ApplyContext) => Promise<void>;
}
