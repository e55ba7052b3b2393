import type { Era } from './versions';

/**
 * Whether `method` exists in `era`. Modern removes `initialize`, `ping`,
 * `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe` (answered with HTTP 404 + −32601);
 * legacy has no `server/discover`.
 */
export function isMethodOfEra(method: string, era: Era): boolean {
  void method; void era;
  throw new Error('not implemented');
}
