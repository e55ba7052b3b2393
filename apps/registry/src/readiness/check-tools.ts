import { CHECK_TITLES, type CheckId } from './check-titles';
import { explainHref, MAX_FIX_TOOLS, result, type CheckResult, type ToolFix } from './check-result';
import { TOOL_NAME } from './client-profiles';
import type { ListedTool } from './list-tools';
import { REQUIRED_HINTS, servedHintGaps, titleGaps } from '../publishing/tool-rules';

const MAX_NAMED = 5;

function title(id: CheckId): string {
  return CHECK_TITLES[id];
}

function nameOf(t: ListedTool): string {
  return typeof t.name === 'string' ? t.name : JSON.stringify(t.name);
}

/** "a, b, c and 4 more" */
function names(list: string[]): string {
  const shown = list
    .slice(0, MAX_NAMED)
    .map((n) => `"${n}"`)
    .join(', ');
  return list.length > MAX_NAMED ? `${shown} and ${list.length - MAX_NAMED} more` : shown;
}

function meta(t: ListedTool): Record<string, unknown> {
  return typeof t._meta === 'object' && t._meta !== null ? (t._meta as Record<string, unknown>) : {};
}

/** (d) The Claude listing itself: how many tools (zero tools is the "Claude shows the tools, then zero" failure). */
export function checkClaudeTools(tools: ListedTool[]): CheckResult {
  if (tools.length === 0)
    return {
      ...result(
        'claude-tools',
        title('claude-tools'),
        'fail',
        'tools/list returned no tools for Claude',
        'Publish at least one tool for the claude surface.',
      ),
      explain: explainHref('claude'),
    };
  return result('claude-tools', title('claude-tools'), 'pass', `${tools.length} tool(s) listed for Claude`);
}

/** (d) No ChatGPT `securitySchemes` (top level or `_meta`) in what Claude receives. */
export function checkNoSecuritySchemes(tools: ListedTool[]): CheckResult {
  const id = 'claude-no-security-schemes';
  const leaking = tools.filter((t) => 'securitySchemes' in t || 'securitySchemes' in meta(t)).map(nameOf);
  if (leaking.length === 0) return result(id, title(id), 'pass', 'no tool carries securitySchemes for Claude');
  return result(
    id,
    title(id),
    'fail',
    `securitySchemes leak to Claude on ${leaking.length} tool(s): ${names(leaking)}`,
    'securitySchemes is a ChatGPT field: send it only to ChatGPT (the Switchboard openai surface does; for the claude surface keep publishSecuritySchemes off).',
  );
}

/** (d) No `openai/*` or `ui` keys in the `_meta` Claude receives. */
export function checkNoOpenAiMeta(tools: ListedTool[]): CheckResult {
  const id = 'claude-no-openai-meta';
  const found: string[] = [];
  for (const t of tools) {
    const keys = Object.keys(meta(t)).filter((k) => k.startsWith('openai/') || k === 'ui' || k.startsWith('ui/'));
    if (keys.length) found.push(`${nameOf(t)} (${keys.join(', ')})`);
  }
  if (found.length === 0) return result(id, title(id), 'pass', 'no openai/* or ui _meta keys reach Claude');
  return result(
    id,
    title(id),
    'fail',
    `_meta keys meant for ChatGPT / MCP Apps reach Claude on ${found.length} tool(s): ${names(found)}`,
    'Strip openai/* and ui from _meta on the claude surface (surface rule metaKeys).',
  );
}

/** `check` with the failing tools and the field fixing each (the console links to the field). */
function withTools(check: CheckResult, fixes: ToolFix[]): CheckResult {
  return fixes.length ? { ...check, tools: fixes.slice(0, MAX_FIX_TOOLS) } : check;
}

/** (d) Every tool has `title` and `annotations.title` (Anthropic directory requirement; Claude shows the name otherwise). */
export function checkToolTitles(tools: ListedTool[]): CheckResult {
  const id = 'tool-titles';
  // The same `title` rule the console flags before publishing (publishing/tool-rules.ts).
  const noTitle = tools.filter((t) => titleGaps(t).title).map(nameOf);
  const noAnnotationTitle = tools.filter((t) => titleGaps(t).annotationTitle).map(nameOf);
  if (noTitle.length === 0 && noAnnotationTitle.length === 0)
    return result(id, title(id), 'pass', 'every tool has title and annotations.title');
  const parts: string[] = [];
  if (noAnnotationTitle.length) parts.push(`no annotations.title on ${noAnnotationTitle.length} tool(s): ${names(noAnnotationTitle)}`);
  if (noTitle.length) parts.push(`no title on ${noTitle.length} tool(s): ${names(noTitle)}`);
  const fixes = tools.flatMap((t) => {
    const gaps = titleGaps(t);
    return gaps.title
      ? [{ name: nameOf(t), field: 'title' }]
      : gaps.annotationTitle
        ? [{ name: nameOf(t), field: 'annotations-title' }]
        : [];
  });
  return withTools(
    result(
      id,
      title(id),
      'fail',
      `${parts.join('; ')}. Claude shows the raw name and directory review rejects the connector.`,
      'Set a title override (and annotations.title) on each of these tools before publishing.',
    ),
    fixes,
  );
}

/** (d) Every tool states the hints the publish gate requires, as booleans: the same rule (publishing/tool-rules.ts), so a tool that published passes. */
export function checkToolHints(tools: ListedTool[]): CheckResult {
  const id = 'tool-hints';
  const missing: string[] = [];
  const fixes: ToolFix[] = [];
  for (const t of tools) {
    const absent = servedHintGaps(t);
    if (absent.length === 0) continue;
    missing.push(`${nameOf(t)} (${absent.join(', ')})`);
    fixes.push({ name: nameOf(t), field: absent[0]! });
  }
  if (missing.length === 0) return result(id, title(id), 'pass', `every tool has ${REQUIRED_HINTS.join(', ')}`);
  return withTools(
    result(
      id,
      title(id),
      'fail',
      `hint annotations missing on ${missing.length} tool(s): ${names(missing)}`,
      `Set ${REQUIRED_HINTS.join(', ')} on every tool (Claude and ChatGPT app review require them).`,
    ),
    fixes,
  );
}

/** (d) Names valid everywhere: `^[A-Za-z0-9_.-]{1,64}$`. */
export function checkToolNames(tools: ListedTool[]): CheckResult {
  const id = 'tool-names';
  const bad = tools.filter((t) => typeof t.name !== 'string' || !TOOL_NAME.test(t.name)).map(nameOf);
  if (bad.length === 0) return result(id, title(id), 'pass', 'every tool name matches ^[A-Za-z0-9_.-]{1,64}$');
  return result(
    id,
    title(id),
    'fail',
    `invalid tool names: ${names(bad)} (must match ^[A-Za-z0-9_.-]{1,64}$)`,
    'Rename these tools (exposed name) to 1-64 characters of A-Z a-z 0-9 _ . -.',
  );
}

/** (d) ChatGPT (by its Origin) lists the same tools as Claude. */
export function checkChatGptTools(claude: ListedTool[], chatgpt: ListedTool[]): CheckResult {
  const id = 'chatgpt-tools';
  const a = new Set(claude.map(nameOf));
  const b = new Set(chatgpt.map(nameOf));
  const onlyClaude = [...a].filter((n) => !b.has(n));
  const onlyChatGpt = [...b].filter((n) => !a.has(n));
  if (onlyClaude.length === 0 && onlyChatGpt.length === 0) return result(id, title(id), 'pass', `ChatGPT lists the same ${b.size} tool(s)`);
  const parts: string[] = [];
  if (onlyClaude.length) parts.push(`missing for ChatGPT: ${names(onlyClaude)}`);
  if (onlyChatGpt.length) parts.push(`only for ChatGPT: ${names(onlyChatGpt)}`);
  return {
    ...result(
      id,
      title(id),
      'fail',
      `ChatGPT and Claude see different tools — ${parts.join('; ')}`,
      'Publish the same tools on the claude and openai surfaces (or check surface rules that hide tools).',
    ),
    // Why the first tool one of them lacks is hidden there.
    explain: onlyClaude.length ? explainHref('openai', onlyClaude[0]) : explainHref('claude', onlyChatGpt[0]),
  };
}
