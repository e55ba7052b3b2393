import type { IncomingMessage } from 'node:http';
import { listenLoopback, type LoopbackServer } from '@switchboard/testing';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, with what it answered. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** 500 (told to fail), 400 (signature or timestamp refused), 409 (an id already accepted: a replay), 200. */
  answered: number;
  /** The event type from the body (when it parsed). */
  type?: string;
}

/**
 * A webhook endpoint as a tenant would write one: verifies each request with the Standard Webhooks
 * reference library (signature over id.timestamp.body, timestamp within 5 minutes) and accepts each
 * `webhook-id` once, so a replayed request is refused. `failNext` makes it answer 500 first.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Secrets a request may be signed with (any one verifying is enough). */
  secrets: string[] = [];
  failNext = 0;
  private readonly accepted = new Set<string>();
  private server?: LoopbackServer;

  /** `http://localhost:<port>/hook` (localhost is the test allow-list for plain http). */
  url = '';

  async start(): Promise<this> {
    this.server = await listenLoopback(async (req, res) => {
      const r = await this.answer(req);
      this.received.push(r);
      res.writeHead(r.answered, { 'content-type': 'text/plain' }).end(String(r.answered));
    });
    this.url = `http://localhost:${this.server.port}/hook`;
    return this;
  }

  /** The requests answered 200, i.e. the deliveries that arrived verified, of one event type. */
  delivered(type?: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.answered === 200 && (type === undefined || r.type === type));
  }

  /** Sends a request as is (a replay or a forgery) and returns the receiver's status. */
  async post(headers: Record<string, string>, body: string): Promise<number> {
    const res = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    await res.text();
    return res.status;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }

  private async answer(req: IncomingMessage): Promise<ReceivedWebhook> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const header = (n: string) => String(req.headers[n] ?? '');
    const r: ReceivedWebhook = {
      id: header('webhook-id'),
      timestamp: header('webhook-timestamp'),
      signature: header('webhook-signature'),
      body,
      answered: 200,
    };
    try {
      r.type = (JSON.parse(body) as { type?: string }).type;
    } catch {
      // A forged body need not be JSON: verification refuses it below.
    }
    if (this.failNext > 0) {
      this.failNext--;
      return { ...r, answered: 500 };
    }
    const headers = { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
    const ok = this.secrets.some((s) => {
      try {
        new Webhook(s).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!ok) return { ...r, answered: 400 };
    if (this.accepted.has(r.id)) return { ...r, answered: 409 };
    this.accepted.add(r.id);
    return r;
  }
}
