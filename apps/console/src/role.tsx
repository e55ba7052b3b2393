import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';

/** Roles of console admins and API keys, weakest first (the registry's `ROUTE_ROLES` decides; this only hides). */
export const ROLES = ['viewer', 'publisher', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** The signed-in caller's role (a registry without roles answers none: everything is shown). */
export const RoleContext = createContext<Role>('owner');

/** Whether the caller's role includes `needed`. */
export function useCan(needed: Role): boolean {
  return ROLES.indexOf(useContext(RoleContext)) >= ROLES.indexOf(needed);
}

/**
 * Shows its children only to callers whose role includes `needed`; others see `note` (if any),
 * naming their role and the one needed, so a hidden control is explained rather than missing.
 */
export function Allowed({ needed, what, children }: { needed: Role; what?: string; children: ComponentChildren }) {
  const role = useContext(RoleContext);
  if (ROLES.indexOf(role) >= ROLES.indexOf(needed)) return <>{children}</>;
  if (!what) return null;
  return (
    <p class="muted small" data-testid="role-note">
      Your role ({role}) can view this; {what} needs the {needed} role.
    </p>
  );
}
