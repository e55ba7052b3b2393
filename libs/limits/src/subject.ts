import type { UsageSubjectKind } from './usage-batch';

/** The verified caller as limits and usage see it (the transport's `AuthGranted`, structurally). */
export interface CallerAuth {
  subject?: string;
  clientId?: string;
}

/**
 * Who a request is limited and metered as: its OAuth `sub`, else its OAuth client, else its
 * address. Kind and id stay apart so neither the limiter's rule cache nor a usage batch builds
 * a `kind:id` string per request (the limiter's key spells `kind:id` once, when its rules are built).
 */
export function subjectKindOf(auth: CallerAuth | undefined): UsageSubjectKind {
  return auth?.subject ? 'sub' : auth?.clientId ? 'client' : 'ip';
}

/** The id that goes with `subjectKindOf` (`?` for a request without an address). */
export function subjectIdOf(auth: CallerAuth | undefined, ip: string | undefined): string {
  return auth?.subject || auth?.clientId || ip || '?';
}
