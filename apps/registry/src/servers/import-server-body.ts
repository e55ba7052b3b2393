import { z } from 'zod';
import { authSchema, SERVER_ID } from '../http/schemas';

/** `POST /v1/servers/import`: which registry entry, which of its remotes, and the credential to use. */
export const importServerBody = z
  .object({
    /** The registry name (`io.github.owner/server`), as in the official server.json `name`. */
    name: z
      .string()
      .min(3)
      .max(200)
      .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'must be a registry server name (namespace/name)'),
    version: z.string().min(1).max(255).default('latest'),
    /** Our server id; default: the part of `name` after the slash, made a valid id. */
    id: z.string().regex(SERVER_ID, 'must be 1-32 chars of a-z 0-9 _ - (starting with a letter or digit)').optional(),
    /** Which remote to register when the server offers several; default streamable-http, else sse. */
    transport: z.enum(['streamable-http', 'sse']).optional(),
    /** Values of the remote URL's `{variables}`; a variable's `default` applies when left out. */
    variables: z.record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), z.string().max(500)).optional(),
    auth: authSchema.default({ mode: 'none' }),
    toolPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,16}$/, 'must be 1-16 chars of A-Z a-z 0-9 _ . -')
      .optional(),
  })
  .strict();

export type ImportServerInput = z.infer<typeof importServerBody>;
