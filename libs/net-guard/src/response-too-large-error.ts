/** An upstream response (or one server-sent event) grew past its byte limit and was cut off. */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  readonly code = 'NET_RESPONSE_TOO_LARGE';

  constructor(
    readonly maxBytes: number,
    /** `response`: the whole body; `event`: one server-sent event of a stream; `stream`: a whole event stream. */
    readonly unit: 'response' | 'event' | 'stream',
    readonly url: string,
  ) {
    super(
      `upstream ${unit === 'event' ? 'server-sent event' : unit === 'stream' ? 'event stream' : 'response'} exceeded ${maxBytes} bytes`,
    );
  }
}
