/** How bad a finding is: `high` findings are refused outright when the tenant sets `blockPoisoned`. */
export type FindingSeverity = 'high' | 'medium';

/**
 * What a rule matches. Patterns are data, compiled on RE2 (linear in the input, so an upstream's
 * description cannot stall the registry); code-point rules test each character against ranges;
 * `length` compares a description's size; `shadow` is the cross-server homoglyph check on names.
 */
export type RuleMatch =
  | { type: 'pattern'; pattern: string }
  | { type: 'codepoints'; ranges: ReadonlyArray<readonly [number, number]> }
  | { type: 'format-char' }
  | { type: 'length'; max: number }
  | { type: 'shadow' };

/** Which texts a rule reads: every scanned text, or only the name of a tool or prompt. */
export type RuleScope = 'text' | 'name';

export interface PoisonRule {
  id: string;
  severity: FindingSeverity;
  scope: RuleScope;
  match: RuleMatch;
  message: string;
}

/** Longest description (or title, or parameter description) that is not itself a finding. */
export const MAX_DESCRIPTION_CHARS = 4_096;
/** Characters of one text the rules read; the rest is not scanned (the length rule still flags it). */
export const SCAN_MAX_CHARS = 16_384;
/** Texts read from one definition (schema properties are walked breadth-first up to this many). */
export const MAX_SCANNED_TEXTS = 200;
/** Findings stored per item; a definition with more is cut here and says so in the last finding. */
export const MAX_FINDINGS_PER_ITEM = 20;

// Words are joined by `\s+`; every gap that may hold other words is a bounded `{0,N}` class.
const VERB_OVERRIDE = '(?:ignore|disregard|forget|override|bypass|skip)';
const EARLIER = '(?:previous|prior|above|earlier|preceding|system|original|safety|all\\s+other)';
const ORDERS = '(?:instructions?|prompts?|rules|directions|guidelines|messages|guardrails)';
const SECRETS =
  '(?:api[\\s_-]?keys?|credentials|passwords?|private\\s+keys?|access\\s+tokens?|secrets|conversation|chat\\s+history|system\\s+prompt)';

/**
 * The rule table: one row per kind of poisoning. Each pattern is case-insensitive and tested on
 * NFKC-normalised text, so full-width or styled letters cannot dodge it.
 */
export const POISON_RULES: readonly PoisonRule[] = [
  {
    id: 'injection.override-instructions',
    severity: 'high',
    scope: 'text',
    match: { type: 'pattern', pattern: `\\b${VERB_OVERRIDE}\\s+(?:(?:all|any|the|your|of|these)\\s+){0,3}${EARLIER}\\s+${ORDERS}` },
    message: 'tells the model to ignore its earlier instructions',
  },
  {
    id: 'injection.hidden-tag',
    severity: 'high',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern: '<\\s*/?\\s*(?:important|system|instructions?|secret|hidden|admin)\\s*>|\\[\\s*(?:system|important|instructions?)\\s*\\]',
    },
    message: 'carries a directive tag (<IMPORTANT>, <system>, [SYSTEM]) addressed to the model',
  },
  {
    id: 'injection.conceal-from-user',
    severity: 'high',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern:
        "\\b(?:do\\s+not|don't|never)\\s+(?:tell|inform|mention|reveal|show|disclose|notify)\\b[^\\n.]{0,30}\\buser\\b|\\bwithout\\s+(?:telling|informing|notifying|alerting)\\s+the\\s+user\\b|\\bthe\\s+user\\s+(?:must|should)\\s+not\\s+(?:know|see|notice|be\\s+told)\\b",
    },
    message: 'asks the model to hide what it does from the user',
  },
  {
    id: 'exfiltration.send-secrets',
    severity: 'high',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern: `\\b(?:send|upload|post|forward|transmit|exfiltrate|leak|email)\\b[^\\n]{0,80}\\b${SECRETS}\\b[^\\n]{0,80}(?:https?://|\\b[\\w.+-]+@[\\w-]+\\.[a-z]{2,})`,
    },
    message: 'asks the model to send secrets or the conversation to an address',
  },
  {
    id: 'exfiltration.sensitive-files',
    severity: 'high',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern:
        '~/\\.ssh\\b|\\bid_(?:rsa|ed25519|ecdsa)\\b|\\.aws/credentials|/etc/(?:passwd|shadow)\\b|(?:~|\\.cursor|\\.vscode|windsurf)/mcp\\.json\\b|\\bclaude_desktop_config\\.json\\b|~/\\.(?:npmrc|netrc|cursor|config/gcloud)\\b',
    },
    message: 'points the model at credential or client config files (~/.ssh, id_rsa, .cursor/mcp.json, .aws/credentials)',
  },
  {
    id: 'exfiltration.context-request',
    severity: 'medium',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern:
        '\\b(?:include|pass|put|append|add|provide|send|copy)\\b[^\\n]{0,40}\\b(?:conversation\\s+history|chat\\s+history|system\\s+prompt|previous\\s+messages|all\\s+(?:prior|previous)\\s+messages)\\b',
    },
    message: 'asks the model to pass the conversation or its system prompt into a call',
  },
  {
    id: 'injection.tool-chaining',
    severity: 'medium',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern:
        '\\b(?:before|after|instead\\s+of)\\s+(?:using|calling|invoking|running)\\s+(?:this|any|other|the\\s+other|another)\\b[^\\n.]{0,40}\\b(?:you\\s+)?(?:must|always|first)\\s+(?:call|read|run|use|invoke|send|pass)\\b',
    },
    message: 'orders the model to call or read something else around this tool',
  },
  {
    id: 'injection.role-override',
    severity: 'medium',
    scope: 'text',
    match: {
      type: 'pattern',
      pattern:
        '\\byou\\s+are\\s+now\\s+(?:an?\\s+|in\\s+)?(?:unrestricted|jailbroken|dan|developer\\s+mode|admin)\\b|\\bnew\\s+(?:system\\s+)?instructions\\s*:',
    },
    message: "tries to change the model's role or give it new instructions",
  },
  {
    id: 'hidden.html-comment',
    severity: 'medium',
    scope: 'text',
    match: { type: 'pattern', pattern: '<!--' },
    message: 'contains an HTML comment (hidden when rendered, read by the model)',
  },
  {
    id: 'unicode.bidi-control',
    severity: 'high',
    scope: 'text',
    match: {
      type: 'codepoints',
      ranges: [
        [0x202a, 0x202e],
        [0x2066, 0x2069],
      ],
    },
    message: 'contains bidirectional control characters that reorder what a reviewer sees',
  },
  {
    id: 'unicode.zero-width',
    severity: 'high',
    scope: 'text',
    match: {
      type: 'codepoints',
      ranges: [
        [0x200b, 0x200d],
        [0x2060, 0x2064],
        [0xfeff, 0xfeff],
        [0x180e, 0x180e],
      ],
    },
    message: 'contains zero-width characters (invisible text)',
  },
  {
    id: 'unicode.tag-characters',
    severity: 'high',
    scope: 'text',
    match: { type: 'codepoints', ranges: [[0xe0000, 0xe007f]] },
    message: 'contains Unicode tag characters (an invisible copy of ASCII text)',
  },
  {
    id: 'unicode.invisible-format',
    severity: 'medium',
    scope: 'text',
    match: { type: 'format-char' },
    message: 'contains other invisible format characters (Unicode category Cf)',
  },
  {
    id: 'size.oversized-description',
    severity: 'medium',
    scope: 'text',
    match: { type: 'length', max: MAX_DESCRIPTION_CHARS },
    message: `is longer than ${MAX_DESCRIPTION_CHARS} characters (room to hide instructions)`,
  },
  {
    id: 'name.homoglyph-shadow',
    severity: 'high',
    scope: 'name',
    match: { type: 'shadow' },
    message: "looks like another server's tool (same letters after mapping look-alike characters)",
  },
];
