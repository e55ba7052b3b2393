import { z } from 'zod';
import { parseRedisUrl } from './parse-redis-url';

/** A config-schema field for REDIS_URL and its companions: any URL `parseRedisUrl` accepts, its problem as the message. */
export function redisUrlSchema(): z.ZodString {
  return z.string().superRefine((value, ctx) => {
    try {
      parseRedisUrl(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  }) as unknown as z.ZodString;
}
