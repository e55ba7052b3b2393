import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';

export const API_OPERATION = 'switchboard:api-operation';
export const API_TAG = 'switchboard:api-tag';

/** Who may call a route: a tenant credential (key, platform token, console session), the operator key, or anyone. */
export type ApiAuth = 'tenant' | 'operator' | 'none';

/**
 * What the OpenAPI document says about one route. Method, path and success status come from
 * Nest's own route metadata; the body, query and params are the zod schemas the handler parses
 * with, so the document cannot drift from what is validated.
 */
export interface ApiOperationSpec {
  operationId: string;
  summary: string;
  auth: ApiAuth;
  /** Overrides the controller's `@ApiTag`. */
  tag?: string;
  body?: z.ZodType;
  /** The body may be left out (the handler defaults it). */
  optionalBody?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  response?: z.ZodType;
  /** The success status when the handler answers through the raw reply (redirects, 204). */
  status?: number;
  /** Further documented answers (status → description), with the error body. */
  errors?: Record<string, string>;
}

/** Documents a route in `/openapi.json`; every route outside `/internal` needs one (a test enforces it). */
export const ApiOperation = (spec: ApiOperationSpec): MethodDecorator => SetMetadata(API_OPERATION, spec);

/** The tag of a controller's routes in the OpenAPI document. */
export const ApiTag = (tag: string): ClassDecorator => SetMetadata(API_TAG, tag);
