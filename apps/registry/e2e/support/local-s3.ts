import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import S3rver from '@20minutes/s3rver';
import { DUMMY_ACCOUNT } from '@20minutes/s3rver/lib/models/account';
import { AwsClient } from 'aws4fetch';

export interface LocalS3 {
  /** `http://localhost:<port>` (localhost is the tests' SSRF allow-list). */
  endpoint: string;
  port: number;
  /** A credential made for this server: s3rver checks every request's Signature V4 against it. */
  credential: { accessKeyId: string; secretAccessKey: string };
  /** Every key under `prefix` (ListObjectsV2, following continuation tokens). */
  list(bucket: string, prefix: string): Promise<string[]>;
  /** Downloads, gunzips and parses a JSON Lines object. */
  readJsonLines(bucket: string, key: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver) on a free loopback port, storing in a temporary folder,
 * with the given buckets; read back through the S3 API with signed requests.
 */
export async function startLocalS3(buckets: string[]): Promise<LocalS3> {
  const directory = await mkdtemp(path.join(tmpdir(), 'sb-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://localhost:${port}`;
  const credential = {
    accessKeyId: `AKTEST${randomBytes(6).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  DUMMY_ACCOUNT.createKeyPair(credential.accessKeyId, credential.secretAccessKey);
  const client = new AwsClient({ ...credential, service: 's3', region: 'us-east-1', retries: 0 });
  const get = async (url: string): Promise<Response> => {
    const res = await client.fetch(url);
    if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
    return res;
  };
  return {
    endpoint,
    port,
    credential,
    list: async (bucket, prefix) => {
      const keys: string[] = [];
      let token: string | undefined;
      for (let page = 0; page < 100; page++) {
        const q = new URLSearchParams({ 'list-type': '2', prefix, ...(token ? { 'continuation-token': token } : {}) });
        const xml = await (await get(`${endpoint}/${bucket}?${q}`)).text();
        for (const m of xml.matchAll(/<Key>([^<]+)<\/Key>/g)) keys.push(m[1]!);
        token = /<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(xml)?.[1];
        if (!token) break;
      }
      return keys.sort();
    },
    readJsonLines: async (bucket, key) => {
      const gz = Buffer.from(await (await get(`${endpoint}/${bucket}/${key}`)).arrayBuffer());
      return gunzipSync(gz)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    close: async () => {
      await server.close();
      DUMMY_ACCOUNT.revokeAccessKey(credential.accessKeyId);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
