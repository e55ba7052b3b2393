import { parseForm, type TestBrowser } from '@switchboard/testing';

/**
 * Opens a connector link URL in `browser` (which must be signed in to the tenant's
 * authorization server as the link's user), confirms on the confirmation page and follows the
 * upstream authorization back to the callback. Returns the last response and the confirmation
 * page's HTML (empty when the flow stopped before it).
 */
export async function linkAccount(browser: TestBrowser, linkUrl: string): Promise<{ res: Response; confirmation: string }> {
  const { res: page, url } = await browser.follow(linkUrl);
  const confirmation = await page.text();
  if (page.status !== 200) return { res: new Response(confirmation, { status: page.status }), confirmation: '' };
  const form = parseForm(confirmation, /\/account\/link\//);
  const posted = await browser.postForm(new URL(form.action, url).href, form.fields);
  const location = posted.headers.get('location');
  if (posted.status !== 303 || !location) return { res: posted, confirmation };
  const { res } = await browser.follow(new URL(location, url).href);
  return { res, confirmation };
}
