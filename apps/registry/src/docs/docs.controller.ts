import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Controller, Get, Header, Inject, Param, Res, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../http/api-error';
import { ApiOperation, ApiTag } from './api-operation';
import { openApiDocument, type OpenApiDocument } from './openapi-document';
import { Database } from '../db/database';
import { REGISTRY_CONFIG, REDIS } from '../http/registry-tokens';
import type { RegistryConfig } from '../config';
import type { RedisClient } from '@switchboard/redis-connection';

const ASSETS_LIST = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png'] as const;
const ASSETS = new Set<string>(ASSETS_LIST);
const TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'application/javascript', '.png': 'image/png' };

/** `/openapi.json`, the Swagger UI page at `/docs` (assets from swagger-ui-dist), and `/health`. */
@Controller()
@ApiTag('Docs')
export class DocsController implements OnModuleInit {
  private controllers: Type[] = [];
  private document: OpenApiDocument | undefined;

  constructor(
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(Database) private readonly db: Database,
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
  ) {}

  /** Built at boot from every mounted controller, so a route without `@ApiOperation` stops the registry from starting. */
  onModuleInit(): void {
    this.controllers = this.discovery.getControllers().flatMap((w) => (w.metatype ? [w.metatype as Type] : []));
    openApiDocument(this.controllers, '');
  }

  @Get('openapi.json')
  @ApiOperation({ operationId: 'getOpenApi', summary: 'This document', auth: 'none' })
  openapi() {
    // The server URL is only known once listening (REGISTRY_PORT=0).
    this.document ??= openApiDocument(this.controllers, `http://${this.config.REGISTRY_HOST}:${this.config.REGISTRY_PORT}`);
    return this.document;
  }

  @Get('docs')
  @ApiOperation({ operationId: 'getDocsPage', summary: 'Swagger UI over this document (HTML)', auth: 'none' })
  @Header('content-type', 'text/html; charset=utf-8')
  docs() {
    return `<!doctype html><html><head><meta charset="utf-8"><title>Switchboard registry API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });</script></body></html>`;
  }

  @Get('docs/assets/:file')
  @ApiOperation({
    operationId: 'getDocsAsset',
    summary: "A file of the Swagger UI page (swagger-ui-dist's CSS, scripts, icon)",
    auth: 'none',
    params: z.object({ file: z.enum(ASSETS_LIST) }),
  })
  async asset(@Param('file') file: string, @Res() reply: FastifyReply) {
    if (!ASSETS.has(file)) throw ApiError.notFound('asset', file, 'params.file');
    const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
    const bytes = await readFile(path.join(dir, file));
    void reply
      .header('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream')
      .header('cache-control', 'public, max-age=86400')
      .send(bytes);
  }

  @Get('health')
  @ApiOperation({
    operationId: 'getHealth',
    summary: 'Liveness and Postgres/Redis readiness',
    auth: 'none',
    response: z.object({ status: z.literal('ok'), postgres: z.enum(['ok', 'unavailable']), redis: z.enum(['ok', 'unavailable']) }),
  })
  async health() {
    const postgres = await this.db.query('SELECT 1').then(
      () => 'ok',
      () => 'unavailable',
    );
    const redis = await this.redis.ping().then(
      () => 'ok',
      () => 'unavailable',
    );
    return { status: 'ok', postgres, redis };
  }
}
