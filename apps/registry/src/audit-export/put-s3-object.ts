import { createHash } from 'node:crypto';
import type { GuardedFetch } from '@switchboard/net-guard';
import { AwsClient } from 'aws4fetch';

/** Where objects go: an S3-compatible endpoint, a bucket, and the credential that may write to it. */
export interface S3Target {
  /** Base URL of the service (`https://s3.eu-west-1.amazonaws.com`, a MinIO or R2 URL). */
  endpoint: string;
  bucket: string;
  region: string;
  /** `https://endpoint/bucket/key` (MinIO, R2, most self-hosted) rather than `https://bucket.endpoint/key`. */
  pathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Longest error body read from the service, in bytes (only its <Code> and <Message> are kept). */
const MAX_ERROR_BODY = 4_096;

/** An upload the service refused or never answered; `message` names the status and the S3 error code. */
export class S3PutError extends Error {
  override readonly name = 'S3PutError';
}

/** The object URL for a key (keys are validated to URL-safe characters upstream, so no encoding is needed). */
export function objectUrl(target: Pick<S3Target, 'endpoint' | 'bucket' | 'pathStyle'>, key: string): URL {
  const base = new URL(target.endpoint);
  const path = base.pathname.replace(/\/+$/, '');
  if (target.pathStyle) return new URL(`${base.origin}${path}/${target.bucket}/${key}`);
  return new URL(`${base.protocol}//${target.bucket}.${base.host}${path}/${key}`);
}

/**
 * PutObject signed with AWS Signature V4 (aws4fetch signs; the request itself goes through the
 * SSRF-guarded fetch, so the endpoint's addresses are checked at connect time). The payload hash
 * is signed too, so a body altered in transit is refused by the service.
 */
export async function putS3Object(fetch: GuardedFetch, target: S3Target, key: string, body: Buffer, timeoutMs: number): Promise<void> {
  const url = objectUrl(target, key);
  const signer = new AwsClient({
    accessKeyId: target.accessKeyId,
    secretAccessKey: target.secretAccessKey,
    service: 's3',
    region: target.region,
    retries: 0,
  });
  const signed = await signer.sign(url.href, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/gzip', 'x-amz-content-sha256': createHash('sha256').update(body).digest('hex') },
  });
  let res: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    res = await fetch(url, { method: 'PUT', headers: signed.headers, body, signal });
  } catch (err) {
    const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : describe(err);
    throw new S3PutError(`PUT ${url.origin}/… failed: ${reason}`, { cause: err });
  }
  if (res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return;
  }
  const text = await readBounded(res, MAX_ERROR_BODY);
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
  throw new S3PutError(`PUT ${url.origin}/… answered ${res.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`);
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(err)}${cause && !String(e?.message).includes(cause) ? ` (${cause})` : ''}`;
}

async function readBounded(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A broken error body still leaves the status to report.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
