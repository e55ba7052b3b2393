/** The 400s of publishing and draft preview, as documented on both operations. */
export const HINTS_400 =
  "PATTERN_UNSUPPORTED: a tool's inputSchema has a regex RE2 cannot run (backreference, lookaround); field = body.items.N.name (approve: body.name), details.issues = [{field, message, tool, pointer, pattern, reason}]. HINTS_REQUIRED: a tool lacks readOnlyHint, destructiveHint or openWorldHint (upstream annotations merged with overrides.annotations); field = body.items.N.overrides.annotations.<hint>, details.issues lists every missing hint";
