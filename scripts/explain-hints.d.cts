/** One line per tool a failing scenario's checks report missing, pointing at GET /v1/explain and the console panel. */
export declare function explainHints(checks: unknown, scenario: string): string[];
