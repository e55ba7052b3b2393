/**
 * What the guardrails need of a CEL implementation: compile once (at publish), evaluate per call.
 * Kept behind this interface so the evaluator package is chosen in one place (cel-rules.ts).
 */
export interface CelEngine {
  compile(expr: string): CelCompiled;
}

export type CelCompiled = { ok: true; program: CelProgram } | { ok: false; message: string; position?: { line: number; column: number } };

export interface CelProgram {
  /** The rule's value for these variables; throws on an evaluation error (missing key, wrong type). */
  evaluate(vars: CelVariables): unknown;
}

/** Variables a rule sees (issue 46 item 3). */
export interface CelVariables {
  caller: { subject: string; scopes: string[]; groups: string[]; client: string };
  tool: { name: string; server: string };
  args: Record<string, unknown>;
  now: Date;
}
