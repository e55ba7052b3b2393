/** The 400s of publishing and draft preview, as documented on both operations. */
export const HINTS_400 =
  "PATTERN_UNSUPPORTED: a tool's inputSchema has a regex RE2 cannot run (backreference, lookaround); field = body.items.N.name (approve: body.name), details.issues = [{field, message, tool, pointer, pattern, reason}]. HINTS_REQUIRED: a tool lacks readOnlyHint, destructiveHint or openWorldHint (upstream annotations merged with overrides.annotations); field = body.items.N.overrides.annotations.<hint>, details.issues lists every missing hint";

/** The 409s of publishing, draft preview and approving an item with poisoned-tool findings (docs/guardrails.md). */
export const FINDINGS_409 =
  'FINDINGS_UNACKNOWLEDGED: the item has poisoned-tool findings and the request did not set acknowledgeFindings: true; field = body.items.N.acknowledgeFindings (approve: body.acknowledgeFindings), details.findings lists them. POISONED_TOOL_BLOCKED: the tenant set blockPoisoned (PUT /v1/guardrails/tool-scan) and the item has a high-severity finding; field = body.items.N.name (approve: body.name), the message names the rule, details.findings lists the high ones';
