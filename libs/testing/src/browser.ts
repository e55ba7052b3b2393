/** A minimal browser: a cookie jar and manual redirect following, so tests see every hop. */
export class TestBrowser {
  private readonly jar = new Map<string, Map<string, { value: string; path: string }>>();

  async get(url: string): Promise<Response> {
    return this.request(url, { method: 'GET' });
  }

  async postForm(url: string, form: Record<string, string>): Promise<Response> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  async request(url: string, init: RequestInit): Promise<Response> {
    const u = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.cookieFor(u);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    this.store(u, res);
    return res;
  }

  /**
   * Follows redirects from `url` until a response is not a redirect or the location matches
   * `stopAt` (e.g. the client's redirect URI). Returns the last response and its URL.
   */
  async follow(url: string, stopAt?: (location: URL) => boolean, max = 15): Promise<{ res: Response; url: string }> {
    let current = url;
    let res = await this.get(current);
    for (let i = 0; i < max; i++) {
      const loc = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !loc) return { res, url: current };
      const next = new URL(loc, current);
      if (stopAt?.(next)) return { res, url: next.href };
      current = next.href;
      res = await this.get(current);
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** Cookie names currently held for a host. */
  cookieNames(host: string): string[] {
    return [...(this.jar.get(host)?.keys() ?? [])];
  }

  /** The value of a cookie the jar holds for the URL's host (undefined when absent). */
  cookieValue(u: URL, name: string): string | undefined {
    return this.jar.get(u.host)?.get(name)?.value;
  }

  clearCookie(host: string, name: string): void {
    this.jar.get(host)?.delete(name);
  }

  private cookieFor(u: URL): string {
    const cookies = this.jar.get(u.host);
    if (!cookies) return '';
    return [...cookies.entries()]
      .filter(([, c]) => u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map(([k, c]) => `${k}=${c.value}`)
      .join('; ');
  }

  private store(u: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = '/';
      let expired = false;
      for (const a of attrs) {
        const [k, v] = a.split('=');
        const key = k?.trim().toLowerCase();
        if (key === 'path' && v) path = v.trim();
        if (key === 'max-age' && Number(v) <= 0) expired = true;
        if (key === 'expires' && v && Date.parse(v) < Date.now()) expired = true;
      }
      let cookies = this.jar.get(u.host);
      if (!cookies) this.jar.set(u.host, (cookies = new Map()));
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, { value, path });
    }
  }
}

/** Reads the hidden form fields and action of the first form in an HTML page. */
export function parseForm(html: string, action?: RegExp): { action: string; fields: Record<string, string> } {
  const forms = [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => !action || action.test(f[1] ?? ''));
  if (!form) throw new Error(`no form in page: ${html.slice(0, 300)}`);
  const fields: Record<string, string> = {};
  for (const m of (form[2] ?? '').matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    fields[m[1] ?? ''] = unescape(m[2] ?? '');
  return { action: unescape(form[1] ?? ''), fields };
}

function unescape(s: string): string {
  return s.replace(/&#(\d+);/g, (_m, d: string) => String.fromCharCode(Number(d))).replace(/&amp;/g, '&');
}
