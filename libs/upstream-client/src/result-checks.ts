import { isJsonObject } from '@switchboard/protocol';
import { UpstreamProtocolError } from './upstream-errors';

const objects = (v: unknown): boolean => Array.isArray(v) && v.every(isJsonObject);

/** The shape the SDK's result schemas insist on, checked without building a validator per call. */
export function checkToolResult(r: Record<string, unknown>): Record<string, unknown> {
  if (r.content === undefined) return { ...r, content: [] };
  if (!objects(r.content) || !(r.content as Array<Record<string, unknown>>).every((c) => typeof c.type === 'string'))
    throw new UpstreamProtocolError('the tools/call result has a malformed content array');
  if (r.isError !== undefined && typeof r.isError !== 'boolean')
    throw new UpstreamProtocolError('the tools/call result has a non-boolean isError');
  if (r.structuredContent !== undefined && !isJsonObject(r.structuredContent))
    throw new UpstreamProtocolError('the tools/call result has a structuredContent that is not an object');
  return r;
}

export function checkObject(r: Record<string, unknown>): Record<string, unknown> {
  if (!isJsonObject(r)) throw new UpstreamProtocolError('the result is not an object');
  return r;
}

export function checkResourceResult(r: Record<string, unknown>): Record<string, unknown> {
  if (!objects(r.contents) || !(r.contents as Array<Record<string, unknown>>).every((c) => typeof c.uri === 'string'))
    throw new UpstreamProtocolError('the resources/read result has a malformed contents array');
  return r;
}

export function checkPromptResult(r: Record<string, unknown>): Record<string, unknown> {
  if (!objects(r.messages)) throw new UpstreamProtocolError('the prompts/get result has a malformed messages array');
  return r;
}
