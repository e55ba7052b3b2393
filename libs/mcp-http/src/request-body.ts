import type { IncomingMessage } from 'node:http';

/** A refused or failed request (body over the limit, a step that threw), answered as a JSON-RPC error. */
export interface RouteFailure {
  statusCode: number;
  message: string;
  cause?: unknown;
}

const TOO_LARGE: RouteFailure = Object.freeze({ statusCode: 413, message: 'Request body is too large' });
const EMPTY = Buffer.alloc(0);

/**
 * Reads a request body of at most `limit` bytes: refused at once when its Content-Length says
 * more, else as soon as the bytes read pass it. One chunk (the usual JSON-RPC POST) is taken
 * as is, without a copy. A client that goes away mid-upload gets nothing (`done` is not called).
 */
export function readRequestBody<T>(
  raw: IncomingMessage,
  limit: number,
  owner: T,
  done: (owner: T, failure: RouteFailure | undefined, body: Buffer) => void,
): void {
  const declared = raw.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    done(owner, TOO_LARGE, EMPTY);
    return;
  }
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let received = 0;
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      stop();
      done(owner, TOO_LARGE, EMPTY);
      return;
    }
    if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  };
  const onEnd = (): void => {
    stop();
    // Node's parser ends a body at its Content-Length, so `received` is that length here.
    done(owner, undefined, more ? Buffer.concat(more, received) : (first ?? EMPTY));
  };
  const onError = (): void => {
    stop();
    raw.destroy();
  };
  const stop = (): void => {
    raw.off('data', onData);
    raw.off('end', onEnd);
    raw.off('error', onError);
  };
  raw.on('data', onData);
  raw.on('end', onEnd);
  raw.on('error', onError);
}
