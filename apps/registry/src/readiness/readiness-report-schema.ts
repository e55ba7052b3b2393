import { CHECK_TITLES } from './check-titles';

const status = { type: 'string', enum: ['pass', 'fail', 'warn', 'skip'] };

/** JSON Schema of the readiness report (OpenAPI response of `POST /v1/tenants/{tenant}/readiness`). */
export const readinessReportSchema: Record<string, unknown> = {
  type: 'object',
  required: ['url', 'ranAt', 'summary', 'checks'],
  properties: {
    url: { type: 'string', format: 'uri', description: 'The connector URL that was checked' },
    ranAt: { type: 'string', format: 'date-time' },
    summary: {
      type: 'object',
      required: ['pass', 'fail', 'warn', 'skip'],
      properties: { pass: { type: 'integer' }, fail: { type: 'integer' }, warn: { type: 'integer' }, skip: { type: 'integer' } },
    },
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'status', 'reason'],
        properties: {
          id: { type: 'string', enum: Object.keys(CHECK_TITLES) },
          title: { type: 'string' },
          status,
          reason: { type: 'string', description: 'What was observed; on failure, the exact problem' },
          fix: { type: 'string', description: 'What to change' },
        },
      },
    },
  },
};
