'use strict';
// CommonJS so scripts/conformance.mjs and a jest-transformed test load it as is (like round-robin-proxy.cjs).
// Points a conformance failure about a tool missing from a list at the Explain API (docs/explain.md),
// which names the rule that hides it: the scenario's failing checks are read for a tool name.

const TOOL_NAME = '([A-Za-z0-9_.-]{1,128})';
/** Phrasings the suites use when an expected tool is absent ("Tool x not found", "missing tool x"…). */
const MISSING = [
  new RegExp(`\\btool\\s+["'\`]?${TOOL_NAME}["'\`]?\\s+(?:was\\s+|is\\s+)?(?:not found|not listed|missing|not in)`, 'i'),
  new RegExp(`\\b(?:missing|no|unknown)\\s+tool:?\\s+["'\`]?${TOOL_NAME}`, 'i'),
];

/**
 * One line per tool a failing scenario's checks report missing, with the explain request and the
 * console panel that says why (the conformance tenant answers on the generic surface).
 */
function explainHints(checks, scenario) {
  if (!Array.isArray(checks)) return [];
  const names = new Set();
  for (const check of checks) {
    if (check?.status !== 'FAILURE' && check?.status !== 'WARNING') continue;
    const text = [check.errorMessage, check.description, JSON.stringify(check.details ?? '')].filter(Boolean).join(' ');
    for (const pattern of MISSING) {
      const m = text.match(pattern);
      if (m) names.add(m[1]);
    }
  }
  return [...names].map(
    (name) =>
      `${scenario}: tool ${name} is missing from a list; why: GET /v1/explain?tool=${encodeURIComponent(name)}&surface=generic ` +
      `(console: /console/tools?explain=${encodeURIComponent(name)})`,
  );
}

module.exports = { explainHints };
