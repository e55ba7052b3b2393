import { RequestMethod, type Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { API_OPERATION, API_TAG, type ApiOperationSpec } from './api-operation';

/** One route as Nest registers it, with its OpenAPI metadata (if any). */
export interface ApiRoute {
  method: string;
  /** OpenAPI form: `/v1/servers/{id}`. */
  path: string;
  /** Nest / find-my-way form: `/v1/servers/:id`. */
  pattern: string;
  handler: string;
  tag: string | undefined;
  httpCode: number | undefined;
  spec: ApiOperationSpec | undefined;
}

function join(...parts: Array<string | string[] | undefined>): string {
  const segs = parts
    .flatMap((p) => (Array.isArray(p) ? p[0] : p) ?? '')
    .flatMap((p) => p.split('/'))
    .filter(Boolean);
  return `/${segs.join('/')}`;
}

/** Every route of these controllers, read from the same metadata Nest's router registers them by. */
export function apiRoutes(controllers: Iterable<Type>): ApiRoute[] {
  const scanner = new MetadataScanner();
  const routes: ApiRoute[] = [];
  for (const controller of controllers) {
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
    const tag = Reflect.getMetadata(API_TAG, controller) as string | undefined;
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const fn = proto[name] as object;
      const sub = Reflect.getMetadata(PATH_METADATA, fn) as string | string[] | undefined;
      if (sub === undefined) continue;
      const pattern = join(base, sub);
      routes.push({
        method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod],
        path: pattern.replace(/:(\w+)/g, '{$1}'),
        pattern,
        handler: `${controller.name}.${name}`,
        tag,
        httpCode: Reflect.getMetadata(HTTP_CODE_METADATA, fn) as number | undefined,
        spec: Reflect.getMetadata(API_OPERATION, fn) as ApiOperationSpec | undefined,
      });
    }
  }
  return routes;
}

/** Gateway- and auth-facing routes: not part of the published admin API. */
export const isInternal = (path: string): boolean => path === '/internal' || path.startsWith('/internal/');
