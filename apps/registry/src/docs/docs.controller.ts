import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Controller, Get, Header, Inject, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../http/api-error';
import { REGISTRY_CONTEXT, type RegistryContext } from '../registry-context';
import { openApiDocument } from './openapi-document';

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
const TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'application/javascript', '.png': 'image/png' };

/** `/openapi.json`, the Swagger UI page at `/docs` (assets from swagger-ui-dist), and `/health`. */
@Controller()
export class DocsController {
  private document: Record<string, unknown> | undefined;

  constructor(@Inject(REGISTRY_CONTEXT) private readonly ctx: RegistryContext) {}

  @Get('openapi.json')
  openapi() {
    this.document ??= openApiDocument(`http://${this.ctx.config.REGISTRY_HOST}:${this.ctx.config.REGISTRY_PORT}`);
    return this.document;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs() {
    return `<!doctype html><html><head><meta charset="utf-8"><title>Switchboard registry API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });</script></body></html>`;
  }

  @Get('docs/assets/:file')
  async asset(@Param('file') file: string, @Res() reply: FastifyReply) {
    if (!ASSETS.has(file)) throw ApiError.notFound('asset', file, 'params.file');
    const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
    const bytes = await readFile(path.join(dir, file));
    void reply.header('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream').header('cache-control', 'public, max-age=86400').send(bytes);
  }

  @Get('health')
  async health() {
    const postgres = await this.ctx.db.query('SELECT 1').then(
      () => 'ok',
      () => 'unavailable',
    );
    const redis = await this.ctx.redis.ping().then(
      () => 'ok',
      () => 'unavailable',
    );
    return { status: 'ok', postgres, redis };
  }
}
