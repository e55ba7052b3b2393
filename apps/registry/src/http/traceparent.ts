import { randomBytes } from 'node:crypto';

/** A W3C trace context header for a new trace (jobs carry it so worker spans join the request's trace). */
export function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}
