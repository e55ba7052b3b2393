/**
 * Injection tokens of the registry's collaborators that are not classes (classes such as Database,
 * SecretBox, Publisher are their own token). A controller injects only what it uses, e.g.
 * `constructor(@Inject(Database) private readonly db: Database, @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig) {}`;
 * create-registry.ts provides them (registry-providers.ts).
 */
export const REGISTRY_CONFIG = Symbol('RegistryConfig');
export const REDIS = Symbol('Redis');
export const LOGGER = Symbol('Logger');
/** The SSRF policy for the URLs tenants name. */
export const NET_POLICY = Symbol('NetGuardPolicy');
/** fetch through the SSRF guard: one keep-alive agent pair for every controller. */
export const GUARDED_FETCH = Symbol('GuardedFetch');
/** The platform OAuth issuer (CONSOLE_ISSUER); undefined when console OAuth sign-in is off. */
export const PLATFORM_ISSUER = Symbol('PlatformIssuer');
