/**
 * Tiny but valid media for the conformance fixtures: a 1×1 RGBA PNG and an 8-sample
 * 8 kHz mono 8-bit PCM WAV (both decode with standard tools).
 */
export const PNG_1X1_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** See {@link PNG_1X1_BASE64}. */
export const WAV_SILENCE_BASE64 = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';

/** The schema of a tool that takes no arguments (MCP 2025-11-25 recommendation). */
export const NO_ARGS = { type: 'object', properties: {}, additionalProperties: false } as const;
