import 'reflect-metadata';
import { Controller, Get } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RegistryServices } from '../registry-services';
import { REGISTRY_CONTROLLERS } from '../registry-controllers';
import { RegistryModule } from '../registry.module';
import { ROUTE_ROLES } from '../model/roles';
import { openApiDocument, undocumentedRoutes } from './openapi-document';

/** Enough of the context for the controllers to be constructed (no request is served). */
const ctx = { config: { REGISTRY_HOST: '127.0.0.1', REGISTRY_PORT: 0 } } as unknown as RegistryServices;

describe('the OpenAPI document', () => {
  const doc = openApiDocument(REGISTRY_CONTROLLERS, 'http://registry.test');
  const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );

  it("documents every route of Nest's router but /internal, and nothing else", async () => {
    const adapter = new FastifyAdapter();
    const registered: string[] = [];
    adapter.getInstance().addHook('onRoute', (r) => {
      for (const m of [r.method].flat()) if (m !== 'HEAD') registered.push(`${m} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    });
    const app = await NestFactory.create<NestFastifyApplication>(RegistryModule.forRoot(ctx), adapter, { logger: false });
    await app.init();
    try {
      const routes = registered.filter((k) => !k.split(' ')[1]!.startsWith('/internal/'));
      expect(registered.length).toBeGreaterThan(routes.length);
      expect(ops.map((o) => o.key).sort()).toEqual([...new Set(routes)].sort());
    } finally {
      await app.close();
    }
  });

  it('refuses to build while a route has no @ApiOperation', () => {
    @Controller('v1')
    class Undocumented {
      @Get('secret-feature')
      hidden() {
        return {};
      }
    }
    expect(undocumentedRoutes([...REGISTRY_CONTROLLERS, Undocumented])).toEqual(['GET /v1/secret-feature (Undocumented.hidden)']);
    expect(() => openApiDocument([Undocumented], '')).toThrow(/GET \/v1\/secret-feature \(Undocumented.hidden\)/);
  });

  it('gives each operation a unique operationId, a declared tag and, for tenant routes, the role of ROUTE_ROLES', () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = doc.tags.map((t) => t.name);
    for (const { key, op } of ops) {
      expect([key, (op.tags as string[]).every((t) => tags.includes(t))]).toEqual([key, true]);
      const tenant = (op.security as Array<Record<string, unknown>>).some((s) => 'tenant' in s);
      if (tenant) expect([key, op['x-required-role']]).toEqual([key, ROUTE_ROLES[key.replace(/\{(\w+)\}/g, ':$1')]]);
    }
  });

  it('documents the bodies the handlers parse, as input (defaults optional), by reference', () => {
    const post = doc.paths['/v1/servers']!.post as { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } };
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateServerBody' });
    const body = doc.components.schemas.CreateServerBody as { required: string[]; properties: Record<string, unknown> };
    expect(body.required.sort()).toEqual(['id', 'name', 'url']);
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['transport', 'auth', 'timeoutMs']));
    // Every $ref points at a component.
    for (const [, target] of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g))
      expect(doc.components.schemas).toHaveProperty([target!]);
  });
});
