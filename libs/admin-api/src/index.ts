// Generated from the registry's OpenAPI document (apps/registry/src/docs) by `npm run gen:api`: do not edit.
// A registry test fails when this file and the document drift apart.

/**
 * How the registry and gateways authenticate to an upstream server
 */
export type AuthMode = 'none' | 'bearer' | 'header' | 'oauth_client_credentials' | 'oauth_user';
export type ServerAuthInput =
  | {
      mode: 'none';
    }
  | {
      mode: 'bearer';
      token: string;
    }
  | {
      mode: 'header';
      header: string;
      value: string;
    }
  | {
      mode: 'oauth_client_credentials';
      tokenUrl: string;
      clientId: string;
      clientSecret: string;
      scope?: string;
      audience?: string;
    }
  | {
      mode: 'oauth_user';
      authorizationServer?: string;
      scope?: string;
    };
/**
 * What the token endpoint would decide about an ID-JAG: the user and scopes, or the refusing check
 */
export type EnterpriseCheckResult =
  | {
      ok: true;
      issuer: string;
      clientId: string;
      subject: string;
      scopes: string[];
      expiresAt: string;
    }
  | {
      ok: false;
      check: string;
      description: string;
    };
export type PublishResponse = PublishResult & {
  items: {
    exposedName: string;
  }[];
};
/**
 * A tenant with its MCP URL
 */
export type Tenant = ConnectInfo & {
  id: string;
  name: string;
  description: string | null;
  currentVersion: string | null;
};
/**
 * `GET /v1/tenant`: the tenant with its settings (`PATCH /v1/tenant` answers the same, plus `published` when it republished)
 */
export type TenantSettings = Tenant & {
  instructions?: string | null;
  origins?: string[];
  hosts?: string[];
  surfaceRules?: {
    [k: string]: unknown;
  } | null;
};
/**
 * The ID-token claims of a test sign-in, or the IdP error
 */
export type TestSignInResult =
  | {
      id: string;
      ok: true;
      issuer: string;
      claims: {
        [k: string]: unknown;
      };
    }
  | {
      id: string;
      ok: false;
      issuer: string;
      error: string;
      errorDescription: string;
    };
export type UpdateTenantResponse = TenantSettings & {
  published?: PublishResult | null;
};
/**
 * `POST /v1/servers/check`: what answered at a URL (nothing is stored), or why nothing usable did
 */
export type UrlCheckResult =
  | {
      ok: true;
      protocol: {
        era: 'modern' | 'legacy';
        version: string | null;
        transport: string;
      };
      serverInfo: {
        name?: string;
        version?: string;
      } | null;
      counts: {
        [k: string]: number;
      };
      tools: string[];
      elapsedMs: number;
      /**
       * The URL is already registered by another server of the tenant (registering would serve its tools twice, colliding names prefixed)
       */
      warnings?: {
        code: 'URL_ALREADY_REGISTERED';
        field: string;
        message: string;
      }[];
    }
  | {
      ok: false;
      reason: 'auth_required' | 'timeout' | 'unreachable' | 'not_mcp' | 'refused';
      message: string;
      elapsedMs: number;
      /**
       * The URL is already registered by another server of the tenant (registering would serve its tools twice, colliding names prefixed)
       */
      warnings?: {
        code: 'URL_ALREADY_REGISTERED';
        field: string;
        message: string;
      }[];
    };

/**
 * Every component schema of the admin API, by name
 */
export interface ApiSchemas {
  Admin: Admin;
  AnnotationOverrides: AnnotationOverrides;
  ApiErrorBody: ApiErrorBody;
  ApproveChangeBody: ApproveChangeBody;
  AuditEntry: AuditEntry;
  AuditExportView: AuditExportView;
  AuthConfig: AuthConfig;
  AuthMode: AuthMode;
  CallRow: CallRow;
  Change: Change;
  CheckGuardrailsResponse: CheckGuardrailsResponse;
  CheckIdJagBody: CheckIdJagBody;
  CheckServerUrlBody: CheckServerUrlBody;
  ConnectInfo: ConnectInfo;
  ConnectorAccount: ConnectorAccount;
  ConnectorLink: ConnectorLink;
  CreateAdminBody: CreateAdminBody;
  CreateKeyBody: CreateKeyBody;
  CreateScimTokenBody: CreateScimTokenBody;
  CreateServerBody: CreateServerBody;
  CreateServerResponse: CreateServerResponse;
  CreateTenantBody: CreateTenantBody;
  CreateWebhookBody: CreateWebhookBody;
  CreateWebhookResponse: CreateWebhookResponse;
  DiffEntry: DiffEntry;
  DirectoryUser: DirectoryUser;
  Discovery: Discovery;
  Enqueued: Enqueued;
  EnterpriseCheckResult: EnterpriseCheckResult;
  ExplainToolResponse: ExplainToolResponse;
  GetConsoleSsoResponse: GetConsoleSsoResponse;
  GetDiscoveryResponse: GetDiscoveryResponse;
  GetGuardrailsResponse: GetGuardrailsResponse;
  GetHealthResponse: GetHealthResponse;
  GetRegistryServerVersionResponse: GetRegistryServerVersionResponse;
  GetTestSignInResultBody: GetTestSignInResultBody;
  GetToolScanResponse: GetToolScanResponse;
  GetUsageResponse: GetUsageResponse;
  GetWebhookResponse: GetWebhookResponse;
  ImportServerBody: ImportServerBody;
  ImportServerResponse: ImportServerResponse;
  InvitedUser: InvitedUser;
  InviteUserBody: InviteUserBody;
  Item: Item;
  LimitsView: LimitsView;
  ListAdminsResponse: ListAdminsResponse;
  ListAuditResponse: ListAuditResponse;
  ListCallsResponse: ListCallsResponse;
  ListChangesResponse: ListChangesResponse;
  ListPublicationsResponse: ListPublicationsResponse;
  ListRegistryServersResponse: ListRegistryServersResponse;
  ListScimTokensResponse: ListScimTokensResponse;
  ListServerItemsResponse: ListServerItemsResponse;
  ListServersResponse: ListServersResponse;
  ListUsersResponse: ListUsersResponse;
  ListWebhookDeliveriesResponse: ListWebhookDeliveriesResponse;
  ListWebhooksResponse: ListWebhooksResponse;
  PoisonFinding: PoisonFinding;
  Preview: Preview;
  Publication: Publication;
  PublishBody: PublishBody;
  PublishResponse: PublishResponse;
  PublishResult: PublishResult;
  PutAuditExportBody: PutAuditExportBody;
  PutConsoleSsoBody: PutConsoleSsoBody;
  PutDiscoveryBody: PutDiscoveryBody;
  PutGuardrailsBody: PutGuardrailsBody;
  PutLimitsBody: PutLimitsBody;
  PutToolScanBody: PutToolScanBody;
  RatePlan: RatePlan;
  RateSpec: RateSpec;
  ReadinessReport: ReadinessReport;
  RotateWebhookSecretBody: RotateWebhookSecretBody;
  RunReadinessBody: RunReadinessBody;
  SendTestWebhookResponse: SendTestWebhookResponse;
  Server: Server;
  ServerAuthInput: ServerAuthInput;
  SessionInfo: SessionInfo;
  SetConnectorBody: SetConnectorBody;
  SurfacePreview: SurfacePreview;
  Tenant: Tenant;
  TenantAuthView: TenantAuthView;
  TenantSettings: TenantSettings;
  TestSignIn: TestSignIn;
  TestSignInResult: TestSignInResult;
  ToolOverrides: ToolOverrides;
  ToolOverridesInput: ToolOverridesInput;
  ToolProblem: ToolProblem;
  UnpublishBody: UnpublishBody;
  UnsupportedPattern: UnsupportedPattern;
  UpdateAdminBody: UpdateAdminBody;
  UpdateKeyBody: UpdateKeyBody;
  UpdateServerBody: UpdateServerBody;
  UpdateTenantAuthBody: UpdateTenantAuthBody;
  UpdateTenantBody: UpdateTenantBody;
  UpdateTenantResponse: UpdateTenantResponse;
  UpdateWebhookBody: UpdateWebhookBody;
  UrlCheckResult: UrlCheckResult;
  UsageRow: UsageRow;
  UserLink: UserLink;
}
/**
 * A console admin (never the password hash)
 */
export interface Admin {
  username: string;
  name?: string | null;
  role?: 'viewer' | 'publisher' | 'admin' | 'owner';
  createdAt?: string | null;
  lastLoginAt?: string | null;
  disabled?: boolean;
}
/**
 * Tool annotations set over the upstream's
 */
export interface AnnotationOverrides {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}
/**
 * An error of the admin API: the code, a message naming the field, and every problem in details.issues
 */
export interface ApiErrorBody {
  error: {
    code: string;
    message: string;
    field?: string;
    details?: {
      issues?: {
        field: string;
        message: string;
      }[];
      [k: string]: unknown;
    };
  };
}
export interface ApproveChangeBody {
  serverId: string;
  kind?: 'tool' | 'prompt' | 'resource' | 'resource_template';
  name: string;
  acknowledgeFindings?: boolean;
}
/**
 * One audited change
 */
export interface AuditEntry {
  id: string | number;
  actor: string;
  action: string;
  target: string | null;
  details: {
    [k: string]: unknown;
  };
  at: string;
}
/**
 * `GET`/`PUT /v1/audit-export`: the sink, its state (status, lastError) and how far the export got; `configured: false` alone when none
 */
export interface AuditExportView {
  configured: boolean;
  enabled?: boolean;
  sink?: 's3';
  endpoint?: string;
  bucket?: string;
  region?: string;
  prefix?: string;
  pathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKeySet?: boolean;
  status?: 'pending' | 'ok' | 'error';
  lastError?: string | null;
  lastErrorAt?: string | null;
  lastExportAt?: string | null;
  nextAttemptAt?: string;
  exported?: number;
  cursor?: {
    id: number;
  };
}
/**
 * Whether console sign-in through the platform OAuth issuer is configured, and where it starts
 */
export interface AuthConfig {
  oauth: boolean;
  loginUrl: string;
}
/**
 * One record of the call log
 */
export interface CallRow {
  id: string;
  at: string;
  subject: string | null;
  clientId: string | null;
  surface: string | null;
  method: string;
  tool: string | null;
  server: string | null;
  outcome: string;
  errorCode: number | null;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
  arguments?: unknown;
  result?: unknown;
}
/**
 * A discovered change of a published item, held for review
 */
export interface Change {
  serverId: string;
  kind: string;
  name: string;
  exposedName: string;
  change: 'modified' | 'removed';
  published: {
    [k: string]: unknown;
  } | null;
  discovered: {
    [k: string]: unknown;
  } | null;
  diff?: DiffEntry[];
  /**
   * Required hint annotations the (upstream) definition does not declare
   */
  missingHints?: ('readOnlyHint' | 'destructiveHint' | 'openWorldHint')[];
  unsupportedPatterns?: UnsupportedPattern[];
  findings?: PoisonFinding[];
}
/**
 * Approved → discovered at a JSON-pointer path (arrays compared whole); a removed item is one {path: "", op: "removed"} row
 */
export interface DiffEntry {
  path: string;
  op: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}
/**
 * A regex of the tool's inputSchema the gateway's linear-time engine (RE2) cannot run; publishing and approving refuse the tool
 */
export interface UnsupportedPattern {
  pointer: string;
  pattern: string;
  reason: string;
}
/**
 * A poisoned-tool warning from discovery (docs/guardrails.md): the rule, its severity, the JSON pointer of the text and an excerpt with invisible characters shown as \u{…}; publishing needs acknowledgeFindings: true
 */
export interface PoisonFinding {
  id: string;
  rule: string;
  severity: 'high' | 'medium';
  pointer: string;
  message: string;
  excerpt: string;
}
/**
 * The outcome of compiling a chain without saving it
 */
export interface CheckGuardrailsResponse {
  valid: boolean;
  /**
   * What is wrong, each naming the field (body.interceptors.N…)
   */
  issues: {
    field: string;
    message: string;
  }[];
}
export interface CheckIdJagBody {
  assertion: string;
}
export interface CheckServerUrlBody {
  url: string;
  transport?: 'auto' | 'streamable-http' | 'sse';
  auth?: ServerAuthInput;
  serverId?: string;
}
/**
 * The MCP URL and the `claude mcp add --transport http` line
 */
export interface ConnectInfo {
  mcpUrl: string;
  claudeCommand: string;
}
/**
 * Whether the tenant admin's upstream account is linked for a connector (never a token)
 */
export interface ConnectorAccount {
  serverId: string;
  linked: boolean;
  expiresAt?: number;
  refreshable?: boolean;
  updatedAt?: number;
}
/**
 * A one-time link URL at the auth service (expiresIn seconds)
 */
export interface ConnectorLink {
  serverId: string;
  linkUrl: string;
  expiresIn: number;
}
export interface CreateAdminBody {
  username: string;
  password: string;
  name?: string;
  role?: 'viewer' | 'publisher' | 'admin' | 'owner';
}
export interface CreateKeyBody {
  name: string;
  role?: 'viewer' | 'publisher' | 'admin' | 'owner';
}
export interface CreateScimTokenBody {
  name: string;
}
export interface CreateServerBody {
  id: string;
  name: string;
  url: string;
  transport?: 'auto' | 'streamable-http' | 'sse';
  auth?: ServerAuthInput;
  toolPrefix?: string;
  timeoutMs?: number;
  maxConcurrency?: number;
  stateful?: boolean;
}
export interface CreateServerResponse {
  server: Server;
  discovery?: Enqueued;
  published?: PublishResult;
  /**
   * Registered, but worth knowing: the URL is already registered under another id (its tools would be served twice)
   */
  warnings?: {
    code: 'URL_ALREADY_REGISTERED';
    field: string;
    message: string;
  }[];
}
/**
 * An upstream server (never its secret: `auth.hasSecret`)
 */
export interface Server {
  id: string;
  name: string;
  url: string;
  transport: string;
  auth: {
    mode: AuthMode;
    hasSecret: boolean;
    header?: string;
    tokenUrl?: string;
    clientId?: string;
    scope?: string;
    audience?: string;
    authorizationServer?: string;
  };
  toolPrefix?: string | null;
  timeoutMs?: number | null;
  maxConcurrency?: number | null;
  stateful?: boolean;
  dynamicResources?: {
    uriPrefixes: string[];
  } | null;
  health: 'pending' | 'ok' | 'error';
  lastError: string | null;
  lastDiscoveredAt: string | null;
  protocol?: {
    era: 'modern' | 'legacy';
    version: string | null;
    transport: string | null;
  } | null;
  discovery?: Discovery | null;
  createdAt: string;
  updatedAt: string;
}
/**
 * Discovery progress: queued → running (attempt n) → ok (counts) | error (reason); a failed attempt that will be retried is queued again with its error
 */
export interface Discovery {
  state: 'queued' | 'running' | 'ok' | 'error';
  jobId?: string;
  attempt?: number;
  startedAt?: string | null;
  finishedAt?: string | null;
  error?: string | null;
  counts?: {
    [k: string]: number;
  } | null;
}
/**
 * A discovery job enqueued, or recorded as pending while the job queue is unavailable
 */
export interface Enqueued {
  queued: boolean;
  jobId?: string;
  pending?: boolean;
  reason?: string;
}
/**
 * A published snapshot
 */
export interface PublishResult {
  version: string;
  tools: number;
  redis: 'ok' | 'unavailable';
}
export interface CreateTenantBody {
  id: string;
  name: string;
  description?: string;
  admin?: CreateAdminBody;
}
export interface CreateWebhookBody {
  url: string;
  /**
   * @minItems 1
   */
  events: [
    'discovery.failed' | 'upstream.change_pending_review' | 'publish.done' | 'connector.unlinked' | 'limit.reached',
    ...('discovery.failed' | 'upstream.change_pending_review' | 'publish.done' | 'connector.unlinked' | 'limit.reached')[]
  ];
  description?: string;
  enabled?: boolean;
}
/**
 * A subscription and its new signing secret
 */
export interface CreateWebhookResponse {
  webhook: GetWebhookResponse;
  /**
   * The signing secret (whsec_…): shown once, store it now
   */
  secret: string;
}
/**
 * A webhook subscription (never its secret)
 */
export interface GetWebhookResponse {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  previousSecretExpiresAt: string | null;
}
/**
 * A person in the tenant user directory (signs in at the tenant authorization server); never a hash or key
 */
export interface DirectoryUser {
  username: string;
  name: string | null;
  status: 'invited' | 'active' | 'disabled';
  hasPassword: boolean;
  createdAt: string;
  createdBy: string;
  lastLoginAt: string | null;
  passkeys: {
    id: string;
    name: string;
    createdAt: string;
    lastUsedAt: string | null;
  }[];
}
export interface ExplainToolResponse {
  surface: string;
  version: string;
  tools: {
    tool: string;
    server?: string;
    upstreamName?: string;
    surface: string;
    version: string;
    listed: boolean;
    callable: 'yes' | 'no' | 'depends';
    rules: {
      rule:
        | 'discovered'
        | 'publish-checks'
        | 'published'
        | 'exposed-name'
        | 'change-review'
        | 'live'
        | 'retired'
        | 'surface'
        | 'name-charset'
        | 'name-length'
        | 'max-tools'
        | 'discovery'
        | 'listed'
        | 'user'
        | 'tool-scopes'
        | 'idp-group'
        | 'client-capabilities'
        | 'task-support'
        | 'rate-limit'
        | 'connector'
        | 'guardrails';
      stage: 'publish' | 'list' | 'call';
      verdict: 'pass' | 'warn' | 'hide' | 'refuse' | 'conditional' | 'skip';
      input: {
        [k: string]: unknown;
      };
      message: string;
      fix?: {
        label: string;
        href: string;
      };
    }[];
  }[];
  truncated: boolean;
}
export interface GetConsoleSsoResponse {
  sso: {
    [k: string]: unknown;
  } | null;
  redirectUri: string;
}
export interface GetDiscoveryResponse {
  discovery: {
    mode: 'off' | 'on' | 'auto';
    threshold: number;
    /**
     * @maxItems 50
     */
    pinned: string[];
    surfaces: {
      [k: string]: {
        mode?: 'off' | 'on' | 'auto';
        threshold?: number;
        /**
         * @maxItems 50
         */
        pinned?: string[];
      };
    };
  } | null;
  protocolVersion: string;
  surfaces: {
    [k: string]: {
      mode: 'off' | 'on' | 'auto';
      threshold: number;
      pinned: string[];
      tools: number;
      active: boolean;
      listed: string[];
    };
  };
  unknownPinned?: string[];
  pushed?: unknown;
}
/**
 * The tenant's interceptor chain (webhook secrets never shown)
 */
export interface GetGuardrailsResponse {
  interceptors: {
    name: string;
    description?: string;
    type: 'validation' | 'mutation';
    hook: {
      /**
       * @minItems 1
       * @maxItems 3
       */
      events:
        | ['tools/call' | 'prompts/get' | 'resources/read']
        | ['tools/call' | 'prompts/get' | 'resources/read', 'tools/call' | 'prompts/get' | 'resources/read']
        | ['tools/call' | 'prompts/get' | 'resources/read', 'tools/call' | 'prompts/get' | 'resources/read', 'tools/call' | 'prompts/get' | 'resources/read'];
      phase: 'request' | 'response' | 'both';
    };
    match?: {
      /**
       * @maxItems 32
       */
      servers?: string[];
      /**
       * @maxItems 32
       */
      tools?: string[];
    };
    mode: 'enforce' | 'audit';
    failOpen: boolean;
    use:
      | {
          builtin: 'pii';
          /**
           * @minItems 1
           * @maxItems 8
           */
          kinds?:
            | ['email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey']
            | ['email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey', 'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey']
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ];
          /**
           * @maxItems 16
           */
          nationalIds?:
            | []
            | [
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ];
        }
      | {
          builtin: 'cel';
          /**
           * @minItems 1
           * @maxItems 16
           */
          rules:
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ];
        }
      | {
          webhook: {
            url: string;
            timeoutMs: number;
            maxBytes: number;
            /**
             * A signing secret is stored (never shown)
             */
            secretSet: boolean;
          };
        };
  }[];
  /**
   * Set by PUT: whether the change reached the gateways now (absent before the first publish)
   */
  pushed?: 'ok' | 'unavailable';
}
export interface GetHealthResponse {
  status: 'ok';
  postgres: 'ok' | 'unavailable';
  redis: 'ok' | 'unavailable';
}
/**
 * An official MCP Registry ServerResponse
 */
export interface GetRegistryServerVersionResponse {
  server: {
    [k: string]: unknown;
  };
  _meta: {
    [k: string]: unknown;
  };
}
export interface GetTestSignInResultBody {
  result: string;
}
export interface GetToolScanResponse {
  blockPoisoned: boolean;
}
export interface GetUsageResponse {
  usage: UsageRow[];
  nextOffset?: number | null;
  groupBy?: string;
}
/**
 * One usage rollup (a day × server × tool × subject, or summed by groupBy)
 */
export interface UsageRow {
  day: string;
  server: string;
  tool: string;
  subject: string;
  calls: number;
  errors: number;
  toolErrors: number;
  rateLimited: number;
  bytesIn: number;
  bytesOut: number;
  avgMs: number;
  latency?: {
    bucketsMs: (number | null)[];
    counts: number[];
  };
}
export interface ImportServerBody {
  name: string;
  version?: string;
  id?: string;
  transport?: 'streamable-http' | 'sse';
  variables?: {
    [k: string]: string;
  };
  auth?: ServerAuthInput;
  toolPrefix?: string;
}
export interface ImportServerResponse {
  server: Server;
  discovery?: Enqueued;
  published?: PublishResult;
  /**
   * Registered, but worth knowing: the URL is already registered under another id (its tools would be served twice)
   */
  warnings?: {
    code: 'URL_ALREADY_REGISTERED';
    field: string;
    message: string;
  }[];
  /**
   * The registry entry the server was registered from
   */
  registry: {
    name: string;
    version: string;
    remote: number;
    url: string;
  };
}
/**
 * The invited user and their one-time invite link
 */
export interface InvitedUser {
  user: DirectoryUser;
  link: UserLink;
}
/**
 * A one-time link (invite or password reset) to hand to the user yourself: Switchboard sends no e-mail. Valid once, until expiresAt
 */
export interface UserLink {
  purpose: 'invite' | 'reset';
  url: string;
  expiresAt: string;
}
export interface InviteUserBody {
  username: string;
  name?: string;
}
/**
 * A discovered tool, prompt, resource or resource template, with its hash and publication state
 */
export interface Item {
  kind: 'tool' | 'prompt' | 'resource' | 'resource_template';
  name: string;
  definition: {
    [k: string]: unknown;
  };
  contentHash: string;
  firstSeenAt?: string;
  lastSeenAt?: string;
  removedAt: string | null;
  exposedName: string | null;
  pendingReview: boolean | null;
  /**
   * Required hint annotations the (upstream) definition does not declare
   */
  missingHints?: ('readOnlyHint' | 'destructiveHint' | 'openWorldHint')[];
  unsupportedPatterns?: UnsupportedPattern[];
  findings?: PoisonFinding[];
  problems?: ToolProblem[];
}
/**
 * A per-tool rule the tool breaks with its saved overrides (the rules publishing and Readiness apply): block = publishing refuses it, warn = Readiness fails it once live; field = the editor field that fixes it
 */
export interface ToolProblem {
  rule: 'hints-required' | 'title' | 'findings';
  level: 'block' | 'warn';
  field: 'readOnlyHint' | 'destructiveHint' | 'openWorldHint' | 'title' | 'findings';
  message: string;
}
/**
 * `GET`/`PUT /v1/limits` (PUT adds `pushed`)
 */
export interface LimitsView {
  rate: RatePlan | null;
  callLog: {
    [k: string]: unknown;
  } | null;
  pushed?: string;
}
/**
 * The tenant's rate plan (`limits.rate`); null = operator defaults
 */
export interface RatePlan {
  tenant?: RateSpec;
  subject?: RateSpec;
  tools?: {
    [k: string]: RateSpec;
  };
  dailyCalls?: number;
}
/**
 * One limit: a sustained rate and the burst above it
 */
export interface RateSpec {
  requestsPerSecond: number;
  burst: number;
}
export interface ListAdminsResponse {
  admins: Admin[];
}
export interface ListAuditResponse {
  entries: AuditEntry[];
  /**
   * Pass as `cursor` for the next (older) page; null on the last page
   */
  nextCursor: string | null;
}
export interface ListCallsResponse {
  calls: CallRow[];
  nextCursor: string | null;
  captures: 'included' | 'withheld';
}
export interface ListChangesResponse {
  changes: Change[];
}
export interface ListPublicationsResponse {
  publications: Publication[];
}
/**
 * One row of the routing table: exposed name → (server, upstream name)
 */
export interface Publication {
  kind: string;
  exposedName: string;
  serverId: string;
  upstreamName: string;
  overrides: ToolOverrides | null;
}
/**
 * Title, description and annotations set over the upstream's
 */
export interface ToolOverrides {
  title?: string;
  description?: string;
  annotations?: AnnotationOverrides;
}
/**
 * An official MCP Registry ServerList
 */
export interface ListRegistryServersResponse {
  servers: GetRegistryServerVersionResponse[];
  metadata: {
    count: number;
  };
}
export interface ListScimTokensResponse {
  baseUrl: string;
  tokens: {
    [k: string]: unknown;
  }[];
}
export interface ListServerItemsResponse {
  items: Item[];
  minItems?: 0;
}
export interface ListServersResponse {
  servers: Server[];
}
export interface ListUsersResponse {
  users: DirectoryUser[];
  /**
   * Pass as `after` for the next page; null on the last
   */
  next: string | null;
}
export interface ListWebhookDeliveriesResponse {
  deliveries: {
    /**
     * The webhook-id header (idempotency key)
     */
    id: string;
    subscriptionId: string;
    eventType: string;
    status: 'pending' | 'queued' | 'delivered' | 'failed';
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
    createdAt: string;
    updatedAt: string;
    deliveredAt: string | null;
    payload: {
      [k: string]: unknown;
    };
  }[];
}
export interface ListWebhooksResponse {
  webhooks: GetWebhookResponse[];
  events: string[];
}
/**
 * What each surface receives (live), or would receive if the draft were published
 */
export interface Preview {
  version: string;
  protocolVersion: string;
  live: boolean;
  draft?: boolean;
  liveVersion?: string | null;
  surfaces: {
    [k: string]: SurfacePreview;
  };
  dynamicResources?: {
    serverId: string;
    uriPrefix: string;
  }[];
  mcpApps?: {
    extension: string;
    tools: {
      name: string;
      resourceUri: string;
    }[];
    resources: {
      uri: string;
      serverId: string | null;
      upstreamUri: string | null;
      mimeType: string | null;
    }[];
    surfaces: {
      id: string;
      label: string;
      audience: 'every-client' | 'declaring-clients';
    }[];
  };
}
/**
 * What one surface (client profile) receives
 */
export interface SurfacePreview {
  profile: {
    id: string;
    label: string;
  };
  tools: {
    [k: string]: unknown;
  }[];
  prompts: {
    [k: string]: unknown;
  }[];
}
export interface PublishBody {
  serverId: string;
  /**
   * @minItems 1
   * @maxItems 1000
   */
  items: [
    {
      kind?: 'tool' | 'prompt' | 'resource' | 'resource_template';
      name: string;
      exposedName?: string;
      overrides?: ToolOverridesInput;
      acknowledgeFindings?: boolean;
    },
    ...{
      kind?: 'tool' | 'prompt' | 'resource' | 'resource_template';
      name: string;
      exposedName?: string;
      overrides?: ToolOverridesInput;
      acknowledgeFindings?: boolean;
    }[]
  ];
  minItems?: 0;
}
export interface ToolOverridesInput {
  title?: string;
  description?: string;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}
export interface PutAuditExportBody {
  endpoint: string;
  bucket: string;
  region?: string;
  prefix?: string;
  pathStyle?: boolean;
  accessKeyId: string;
  secretAccessKey?: string;
  enabled?: boolean;
}
export interface PutConsoleSsoBody {
  issuer: string;
  clientId: string;
  clientSecret?: string | null;
  groupClaim?: string;
  usernameClaim?: string;
  roleMap?: {
    [k: string]: 'viewer' | 'publisher' | 'admin' | 'owner';
  };
  jit?: boolean;
  enabled?: boolean;
}
export interface PutDiscoveryBody {
  mode?: 'off' | 'on' | 'auto';
  threshold?: number;
  /**
   * @maxItems 50
   */
  pinned?: string[];
  surfaces?: {
    [k: string]: {
      mode?: 'off' | 'on' | 'auto';
      threshold?: number;
      /**
       * @maxItems 50
       */
      pinned?: string[];
    };
  };
}
/**
 * The tenant's interceptor chain, in the order it runs
 */
export interface PutGuardrailsBody {
  /**
   * @maxItems 32
   */
  interceptors: {
    name: string;
    description?: string;
    type: 'validation' | 'mutation';
    hook: {
      /**
       * @minItems 1
       * @maxItems 3
       */
      events:
        | ['tools/call' | 'prompts/get' | 'resources/read']
        | ['tools/call' | 'prompts/get' | 'resources/read', 'tools/call' | 'prompts/get' | 'resources/read']
        | ['tools/call' | 'prompts/get' | 'resources/read', 'tools/call' | 'prompts/get' | 'resources/read', 'tools/call' | 'prompts/get' | 'resources/read'];
      phase?: 'request' | 'response' | 'both';
    };
    match?: {
      /**
       * @maxItems 32
       */
      servers?: string[];
      /**
       * @maxItems 32
       */
      tools?: string[];
    };
    mode?: 'enforce' | 'audit';
    failOpen?: boolean;
    use:
      | {
          builtin: 'pii';
          /**
           * @minItems 1
           * @maxItems 8
           */
          kinds?:
            | ['email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey']
            | ['email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey', 'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey']
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ]
            | [
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey',
                'email' | 'phone' | 'card' | 'iban' | 'nationalId' | 'jwt' | 'bearer' | 'apiKey'
              ];
          /**
           * @maxItems 16
           */
          nationalIds?:
            | []
            | [
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ]
            | [
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                },
                {
                  name: string;
                  pattern: string;
                }
              ];
        }
      | {
          builtin: 'cel';
          /**
           * @minItems 1
           * @maxItems 16
           */
          rules:
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ]
            | [
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                },
                {
                  name: string;
                  expr: string;
                  message: string;
                }
              ];
        }
      | {
          webhook: {
            url: string;
            timeoutMs?: number;
            maxBytes?: number;
            /**
             * Standard Webhooks signing secret (whsec_…): write-only, sealed at rest; omit to keep the stored one
             */
            secret?: string;
          };
        };
  }[];
}
export interface PutLimitsBody {
  rate?: {
    tenant?: {
      requestsPerSecond: number;
      burst: number;
    };
    subject?: {
      requestsPerSecond: number;
      burst: number;
    };
    tools?: {
      [k: string]: {
        requestsPerSecond: number;
        burst: number;
      };
    };
    dailyCalls?: number;
  } | null;
  callLog?: {
    captureArguments?: boolean;
    captureResults?: boolean;
    /**
     * @maxItems 100
     */
    redactKeys?: string[];
    retentionDays?: number;
  };
}
export interface PutToolScanBody {
  blockPoisoned: boolean;
}
/**
 * The connector readiness report
 */
export interface ReadinessReport {
  /**
   * The connector URL that was checked
   */
  url: string;
  ranAt: string;
  summary: {
    pass: number;
    fail: number;
    warn: number;
    skip: number;
  };
  checks: {
    id:
      | 'modern-discover'
      | 'version-header-quirk'
      | 'legacy-initialize'
      | 'legacy-version-header'
      | 'newer-version-header'
      | 'event-stream'
      | 'claude-tools'
      | 'claude-no-security-schemes'
      | 'claude-no-openai-meta'
      | 'tool-titles'
      | 'tool-hints'
      | 'tool-names'
      | 'chatgpt-tools'
      | 'auth-challenge'
      | 'prm-resource'
      | 'prm-authorization-servers'
      | 'as-metadata'
      | 'as-pkce'
      | 'as-registration'
      | 'dcr-claude'
      | 'dcr-chatgpt';
    title: string;
    status: 'pass' | 'fail' | 'warn' | 'skip';
    /**
     * What was observed; on failure, the exact problem
     */
    reason: string;
    /**
     * What to change
     */
    fix?: string;
    /**
     * The tools a tool check fails (at most 50), each with the field that fixes it
     */
    tools?: {
      name: string;
      /**
       * The editor field that fixes it: title, annotations-title or a required hint
       */
      field: string;
    }[];
    /**
     * For a tool a list lacks: the console address of the "Why not visible?" panel (GET /v1/explain)
     */
    explain?: string;
  }[];
}
export interface RotateWebhookSecretBody {
  graceSeconds?: number;
}
export interface RunReadinessBody {
  url?: string;
  accessToken?: string;
}
export interface SendTestWebhookResponse {
  deliveryId: string;
  queued: boolean;
}
/**
 * Who is calling: the tenant, the signed-in console admin (null for an API key) and how
 */
export interface SessionInfo {
  tenant: string;
  user: {
    username: string;
    name?: string | null;
  } | null;
  via: 'session' | 'api_key' | 'token';
  role?: 'viewer' | 'publisher' | 'admin' | 'owner';
}
export interface SetConnectorBody {
  issuer: string;
  clientId: string;
  clientSecret?: string | null;
  /**
   * @maxItems 32
   */
  scopes?: string[];
  grant?:
    | (
        | {
            kind: 'token_exchange';
            audience?: string;
            resource?: string;
          }
        | {
            kind: 'cross_app';
            idpIssuer: string;
            idpClientId: string;
            idpClientSecret?: string | null;
            audience?: string;
            resource?: string;
          }
      )
    | null;
}
/**
 * `GET /v1/tenant/auth` (never a secret: `clientSecretSet` instead); changes answer the same plus `pushed`
 */
export interface TenantAuthView {
  configured: boolean;
  protected: boolean;
  scopes: string[];
  defaultScopes: string[] | null;
  toolScopes: {
    [k: string]: string[];
  };
  allowPrivateUseRedirects?: boolean;
  idp:
    | {
        kind: 'local';
      }
    | {
        kind: 'oidc';
        issuer: string;
        clientId: string;
        scopes: string[];
        clientSecretSet: boolean;
      };
  enterpriseIdps?: {
    issuer: string;
    jwksUri: string;
    allowedClients: string[];
    subjectClaim: string;
    groupsClaim: string;
    groupScopes: {
      [k: string]: string[];
    };
  }[];
  connectors: {
    [k: string]: {
      issuer: string;
      clientId: string;
      scopes: string[];
      clientSecretSet: boolean;
      grant?:
        | {
            kind: 'token_exchange';
            audience?: string;
            resource?: string;
          }
        | {
            kind: 'cross_app';
            idpIssuer: string;
            idpClientId: string;
            idpClientSecretSet: boolean;
            audience?: string;
            resource?: string;
          };
    };
  };
  pushed?: ('ok' | 'unavailable') | null;
}
/**
 * A started test sign-in: open `url` in the browser (valid until expiresAt)
 */
export interface TestSignIn {
  id: string;
  url: string;
  expiresAt: string;
  redirectUri: string;
}
export interface UnpublishBody {
  serverId: string;
  /**
   * @minItems 1
   * @maxItems 1000
   */
  items: [
    {
      kind?: 'tool' | 'prompt' | 'resource' | 'resource_template';
      name: string;
    },
    ...{
      kind?: 'tool' | 'prompt' | 'resource' | 'resource_template';
      name: string;
    }[]
  ];
  minItems?: 0;
}
export interface UpdateAdminBody {
  role: 'viewer' | 'publisher' | 'admin' | 'owner';
}
export interface UpdateKeyBody {
  role: 'viewer' | 'publisher' | 'admin' | 'owner';
}
export interface UpdateServerBody {
  name?: string;
  url?: string;
  transport?: 'auto' | 'streamable-http' | 'sse';
  auth?: ServerAuthInput;
  toolPrefix?: string | null;
  timeoutMs?: number | null;
  maxConcurrency?: number | null;
  stateful?: boolean;
  dynamicResources?: {
    /**
     * @minItems 1
     * @maxItems 16
     */
    uriPrefixes:
      | [string]
      | [string, string]
      | [string, string, string]
      | [string, string, string, string]
      | [string, string, string, string, string]
      | [string, string, string, string, string, string]
      | [string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string, string, string, string, string, string]
      | [string, string, string, string, string, string, string, string, string, string, string, string, string, string, string, string];
  } | null;
}
export interface UpdateTenantAuthBody {
  protected?: boolean;
  /**
   * @minItems 1
   * @maxItems 32
   */
  scopes?: [string, ...string[]];
  defaultScopes?: [string, ...string[]] | null;
  toolScopes?: {
    /**
     * @minItems 1
     * @maxItems 32
     */
    [k: string]: [string, ...string[]];
  };
  allowPrivateUseRedirects?: boolean;
  idp?:
    | {
        kind: 'local';
      }
    | {
        kind: 'oidc';
        issuer: string;
        clientId: string;
        clientSecret?: string | null;
        /**
         * @minItems 1
         * @maxItems 32
         */
        scopes?: [string, ...string[]];
      };
  enterpriseIdps?: {
    issuer: string;
    jwksUri: string;
    /**
     * @minItems 1
     * @maxItems 100
     */
    allowedClients: [string, ...string[]];
    subjectClaim?: string;
    groupsClaim?: string;
    groupScopes?: {
      /**
       * @minItems 1
       * @maxItems 32
       */
      [k: string]: [string, ...string[]];
    };
  }[];
}
export interface UpdateTenantBody {
  name?: string;
  description?: string | null;
  instructions?: string | null;
  /**
   * @maxItems 50
   */
  origins?: string[];
  /**
   * @maxItems 50
   */
  hosts?: string[];
  surfaceRules?: {
    clientSurfaces?: {
      [k: string]: string;
    };
    surfaces?: {
      [k: string]: {
        [k: string]: unknown;
      };
    };
  };
}
export interface UpdateWebhookBody {
  url?: string;
  /**
   * @minItems 1
   */
  events?: [
    'discovery.failed' | 'upstream.change_pending_review' | 'publish.done' | 'connector.unlinked' | 'limit.reached',
    ...('discovery.failed' | 'upstream.change_pending_review' | 'publish.done' | 'connector.unlinked' | 'limit.reached')[]
  ];
  description?: string | null;
  enabled?: boolean;
}

/** Each operation of the admin API by operationId: method, path template, body and success answer. */
export interface Operations {
  createTenant: { method: 'POST'; path: '/v1/tenants'; body: CreateTenantBody; response: unknown };
  listTenants: { method: 'GET'; path: '/v1/tenants'; body: never; response: unknown };
  getTenant: { method: 'GET'; path: '/v1/tenant'; body: never; response: TenantSettings };
  updateTenant: { method: 'PATCH'; path: '/v1/tenant'; body: UpdateTenantBody; response: UpdateTenantResponse };
  getConnectInfo: { method: 'GET'; path: '/v1/connect'; body: never; response: ConnectInfo };
  listKeys: { method: 'GET'; path: '/v1/keys'; body: never; response: unknown };
  createKey: { method: 'POST'; path: '/v1/keys'; body: CreateKeyBody; response: unknown };
  updateKey: { method: 'PATCH'; path: '/v1/keys/{id}'; body: UpdateKeyBody; response: unknown };
  revokeKey: { method: 'DELETE'; path: '/v1/keys/{id}'; body: never; response: unknown };
  listAudit: { method: 'GET'; path: '/v1/audit'; body: never; response: ListAuditResponse };
  getSession: { method: 'GET'; path: '/v1/session'; body: never; response: SessionInfo };
  listAdmins: { method: 'GET'; path: '/v1/admins'; body: never; response: ListAdminsResponse };
  createAdmin: { method: 'POST'; path: '/v1/admins'; body: CreateAdminBody; response: Admin };
  updateAdmin: { method: 'PATCH'; path: '/v1/admins/{username}'; body: UpdateAdminBody; response: Admin };
  disableAdmin: { method: 'DELETE'; path: '/v1/admins/{username}'; body: never; response: Admin };
  checkServerUrl: { method: 'POST'; path: '/v1/servers/check'; body: CheckServerUrlBody; response: UrlCheckResult };
  listServers: { method: 'GET'; path: '/v1/servers'; body: never; response: ListServersResponse };
  createServer: { method: 'POST'; path: '/v1/servers'; body: CreateServerBody; response: CreateServerResponse };
  getServer: { method: 'GET'; path: '/v1/servers/{id}'; body: never; response: Server };
  updateServer: { method: 'PATCH'; path: '/v1/servers/{id}'; body: UpdateServerBody; response: CreateServerResponse };
  deleteServer: { method: 'DELETE'; path: '/v1/servers/{id}'; body: never; response: unknown };
  discoverServer: { method: 'POST'; path: '/v1/servers/{id}/discover'; body: never; response: Enqueued };
  listServerItems: { method: 'GET'; path: '/v1/servers/{id}/items'; body: never; response: ListServerItemsResponse };
  listPublications: { method: 'GET'; path: '/v1/publications'; body: never; response: ListPublicationsResponse };
  publish: { method: 'POST'; path: '/v1/publications'; body: PublishBody; response: PublishResponse };
  unpublish: { method: 'POST'; path: '/v1/publications/unpublish'; body: UnpublishBody; response: PublishResult };
  republish: { method: 'POST'; path: '/v1/publish'; body: never; response: PublishResult };
  listChanges: { method: 'GET'; path: '/v1/changes'; body: never; response: ListChangesResponse };
  approveChange: { method: 'POST'; path: '/v1/changes/approve'; body: ApproveChangeBody; response: unknown };
  getPreview: { method: 'GET'; path: '/v1/preview'; body: never; response: Preview };
  previewDraft: { method: 'POST'; path: '/v1/preview'; body: PublishBody; response: Preview };
  listSnapshots: { method: 'GET'; path: '/v1/snapshots'; body: never; response: unknown };
  runReadiness: { method: 'POST'; path: '/v1/tenants/{tenant}/readiness'; body: RunReadinessBody; response: ReadinessReport };
  getOpenApi: { method: 'GET'; path: '/openapi.json'; body: never; response: unknown };
  getDocsPage: { method: 'GET'; path: '/docs'; body: never; response: unknown };
  getDocsAsset: { method: 'GET'; path: '/docs/assets/{file}'; body: never; response: unknown };
  getHealth: { method: 'GET'; path: '/health'; body: never; response: GetHealthResponse };
  getConsoleAuthConfig: { method: 'GET'; path: '/console/auth.json'; body: never; response: AuthConfig };
  startConsoleLogin: { method: 'GET'; path: '/console/login'; body: never; response: unknown };
  consoleCallback: { method: 'GET'; path: '/console/callback'; body: never; response: unknown };
  consoleLogout: { method: 'POST'; path: '/console/logout'; body: never; response: unknown };
  getTenantAuth: { method: 'GET'; path: '/v1/tenant/auth'; body: never; response: TenantAuthView };
  updateTenantAuth: { method: 'PATCH'; path: '/v1/tenant/auth'; body: UpdateTenantAuthBody; response: TenantAuthView };
  startTestSignIn: { method: 'POST'; path: '/v1/tenant/auth/test-sign-in'; body: never; response: TestSignIn };
  getTestSignInResult: { method: 'POST'; path: '/v1/tenant/auth/test-sign-in/result'; body: GetTestSignInResultBody; response: TestSignInResult };
  setConnector: { method: 'PUT'; path: '/v1/servers/{id}/connector'; body: SetConnectorBody; response: TenantAuthView };
  removeConnector: { method: 'DELETE'; path: '/v1/servers/{id}/connector'; body: never; response: TenantAuthView };
  startConnectorLink: { method: 'POST'; path: '/v1/servers/{id}/connector/link'; body: never; response: ConnectorLink };
  getConnectorAccount: { method: 'GET'; path: '/v1/servers/{id}/connector/account'; body: never; response: ConnectorAccount };
  unlinkConnectorAccount: { method: 'DELETE'; path: '/v1/servers/{id}/connector/account'; body: never; response: unknown };
  checkIdJag: { method: 'POST'; path: '/v1/tenant/auth/enterprise-check'; body: CheckIdJagBody; response: EnterpriseCheckResult };
  getLimits: { method: 'GET'; path: '/v1/limits'; body: never; response: LimitsView };
  putLimits: { method: 'PUT'; path: '/v1/limits'; body: PutLimitsBody; response: LimitsView };
  getUsage: { method: 'GET'; path: '/v1/usage'; body: never; response: GetUsageResponse };
  listCalls: { method: 'GET'; path: '/v1/calls'; body: never; response: ListCallsResponse };
  listUsers: { method: 'GET'; path: '/v1/users'; body: never; response: ListUsersResponse };
  inviteUser: { method: 'POST'; path: '/v1/users'; body: InviteUserBody; response: InvitedUser };
  createUserResetLink: { method: 'POST'; path: '/v1/users/{username}/reset-link'; body: never; response: UserLink };
  disableUser: { method: 'POST'; path: '/v1/users/{username}/disable'; body: never; response: DirectoryUser };
  enableUser: { method: 'POST'; path: '/v1/users/{username}/enable'; body: never; response: DirectoryUser };
  removeUserPasskey: { method: 'DELETE'; path: '/v1/users/{username}/passkeys/{id}'; body: never; response: DirectoryUser };
  startConsoleSsoLogin: { method: 'GET'; path: '/console/sso/login'; body: never; response: unknown };
  consoleSsoCallback: { method: 'GET'; path: '/console/sso/callback'; body: never; response: unknown };
  getConsoleSso: { method: 'GET'; path: '/v1/console-sso'; body: never; response: GetConsoleSsoResponse };
  putConsoleSso: { method: 'PUT'; path: '/v1/console-sso'; body: PutConsoleSsoBody; response: GetConsoleSsoResponse };
  deleteConsoleSso: { method: 'DELETE'; path: '/v1/console-sso'; body: never; response: unknown };
  listScimTokens: { method: 'GET'; path: '/v1/scim/tokens'; body: never; response: ListScimTokensResponse };
  createScimToken: { method: 'POST'; path: '/v1/scim/tokens'; body: CreateScimTokenBody; response: unknown };
  revokeScimToken: { method: 'DELETE'; path: '/v1/scim/tokens/{id}'; body: never; response: unknown };
  scimServiceProviderConfig: { method: 'GET'; path: '/scim/v2/{tenant}/ServiceProviderConfig'; body: never; response: unknown };
  scimResourceTypes: { method: 'GET'; path: '/scim/v2/{tenant}/ResourceTypes'; body: never; response: unknown };
  scimSchemas: { method: 'GET'; path: '/scim/v2/{tenant}/Schemas'; body: never; response: unknown };
  scimListUsers: { method: 'GET'; path: '/scim/v2/{tenant}/Users'; body: never; response: unknown };
  scimCreateUser: { method: 'POST'; path: '/scim/v2/{tenant}/Users'; body: never; response: unknown };
  scimGetUser: { method: 'GET'; path: '/scim/v2/{tenant}/Users/{id}'; body: never; response: unknown };
  scimReplaceUser: { method: 'PUT'; path: '/scim/v2/{tenant}/Users/{id}'; body: never; response: unknown };
  scimPatchUser: { method: 'PATCH'; path: '/scim/v2/{tenant}/Users/{id}'; body: never; response: unknown };
  scimDeleteUser: { method: 'DELETE'; path: '/scim/v2/{tenant}/Users/{id}'; body: never; response: unknown };
  scimListGroups: { method: 'GET'; path: '/scim/v2/{tenant}/Groups'; body: never; response: unknown };
  scimCreateGroup: { method: 'POST'; path: '/scim/v2/{tenant}/Groups'; body: never; response: unknown };
  scimGetGroup: { method: 'GET'; path: '/scim/v2/{tenant}/Groups/{id}'; body: never; response: unknown };
  scimReplaceGroup: { method: 'PUT'; path: '/scim/v2/{tenant}/Groups/{id}'; body: never; response: unknown };
  scimPatchGroup: { method: 'PATCH'; path: '/scim/v2/{tenant}/Groups/{id}'; body: never; response: unknown };
  scimDeleteGroup: { method: 'DELETE'; path: '/scim/v2/{tenant}/Groups/{id}'; body: never; response: unknown };
  getAuditExport: { method: 'GET'; path: '/v1/audit-export'; body: never; response: AuditExportView };
  putAuditExport: { method: 'PUT'; path: '/v1/audit-export'; body: PutAuditExportBody; response: AuditExportView };
  deleteAuditExport: { method: 'DELETE'; path: '/v1/audit-export'; body: never; response: AuditExportView };
  runAuditExport: { method: 'POST'; path: '/v1/audit-export/run'; body: never; response: AuditExportView };
  listWebhooks: { method: 'GET'; path: '/v1/webhooks'; body: never; response: ListWebhooksResponse };
  createWebhook: { method: 'POST'; path: '/v1/webhooks'; body: CreateWebhookBody; response: CreateWebhookResponse };
  getWebhook: { method: 'GET'; path: '/v1/webhooks/{id}'; body: never; response: GetWebhookResponse };
  updateWebhook: { method: 'PATCH'; path: '/v1/webhooks/{id}'; body: UpdateWebhookBody; response: GetWebhookResponse };
  deleteWebhook: { method: 'DELETE'; path: '/v1/webhooks/{id}'; body: never; response: unknown };
  rotateWebhookSecret: { method: 'POST'; path: '/v1/webhooks/{id}/rotate'; body: RotateWebhookSecretBody; response: CreateWebhookResponse };
  sendTestWebhook: { method: 'POST'; path: '/v1/webhooks/{id}/test'; body: never; response: SendTestWebhookResponse };
  listWebhookDeliveries: { method: 'GET'; path: '/v1/webhooks/{id}/deliveries'; body: never; response: ListWebhookDeliveriesResponse };
  listRegistryServers: { method: 'GET'; path: '/t/{tenant}/v0.1/servers'; body: never; response: ListRegistryServersResponse };
  listRegistryServerVersions: { method: 'GET'; path: '/t/{tenant}/v0.1/servers/{serverName}/versions'; body: never; response: ListRegistryServersResponse };
  getRegistryServerVersion: { method: 'GET'; path: '/t/{tenant}/v0.1/servers/{serverName}/versions/{version}'; body: never; response: GetRegistryServerVersionResponse };
  importServer: { method: 'POST'; path: '/v1/servers/import'; body: ImportServerBody; response: ImportServerResponse };
  getToolScan: { method: 'GET'; path: '/v1/guardrails/tool-scan'; body: never; response: GetToolScanResponse };
  putToolScan: { method: 'PUT'; path: '/v1/guardrails/tool-scan'; body: PutToolScanBody; response: GetToolScanResponse };
  getGuardrails: { method: 'GET'; path: '/v1/guardrails'; body: never; response: GetGuardrailsResponse };
  putGuardrails: { method: 'PUT'; path: '/v1/guardrails'; body: PutGuardrailsBody; response: GetGuardrailsResponse };
  checkGuardrails: { method: 'POST'; path: '/v1/guardrails/check'; body: PutGuardrailsBody; response: CheckGuardrailsResponse };
  getDiscovery: { method: 'GET'; path: '/v1/discovery'; body: never; response: GetDiscoveryResponse };
  putDiscovery: { method: 'PUT'; path: '/v1/discovery'; body: PutDiscoveryBody; response: GetDiscoveryResponse };
  deleteDiscovery: { method: 'DELETE'; path: '/v1/discovery'; body: never; response: GetDiscoveryResponse };
  explainTool: { method: 'GET'; path: '/v1/explain'; body: never; response: ExplainToolResponse };
}
