/**
 * A wire error: it carries a JSON-RPC code, optional data, and the HTTP status the
 * transport should answer with. Local (non-wire) failures use their own string-coded errors.
 */
export class McpError extends Error {
  override readonly name = 'McpError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /** HTTP status for the response carrying this error; 200 unless a transport rule says otherwise. */
    readonly httpStatus: number = 200,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
