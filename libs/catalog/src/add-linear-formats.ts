import type Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { linearRegExp } from './linear-reg-exp';

// ajv-formats' regexes that use lookahead, which RE2 lacks. Each is replaced by an equivalent
// check built from RE2 pieces plus plain string tests, so no format runs on V8's backtracking
// engine either. Their inputs are capped first: the format's own maximum where it has one.
const HOSTNAME = linearRegExp('^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\\.?$', 'i');
const DURATION = linearRegExp('^P(?:(?:\\d+Y)?(?:\\d+M)?(?:\\d+D)?(?:T(?:\\d+H)?(?:\\d+M)?(?:\\d+S)?)?|(?:\\d+W)?)$');
const T_WITHOUT_DIGIT = linearRegExp('T(?:\\D|$)');
// `url` (deprecated in ajv-formats): its private-address lookaheads are dropped — a format says
// what a string looks like, and SSRF checks belong where URLs are fetched, not in validation.
const URL_FORMAT = linearRegExp(
  '^(?:https?|ftp)://(?:\\S+(?::\\S*)?@)?(?:(?:[1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3])(?:\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])){2}(?:\\.(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4]))|(?:(?:[a-z0-9\\x{00a1}-\\x{ffff}]+-)*[a-z0-9\\x{00a1}-\\x{ffff}]+)(?:\\.(?:[a-z0-9\\x{00a1}-\\x{ffff}]+-)*[a-z0-9\\x{00a1}-\\x{ffff}]+)*(?:\\.(?:[a-z\\x{00a1}-\\x{ffff}]{2,})))(?::\\d{2,5})?(?:/\\S*)?$',
  'i',
);
const MAX_HOSTNAME = 253;

const REPLACED: Record<string, (s: string) => boolean> = {
  hostname: (s) => s.length >= 1 && s.length <= MAX_HOSTNAME + (s.endsWith('.') ? 1 : 0) && HOSTNAME.test(s),
  duration: (s) => s !== 'P' && !T_WITHOUT_DIGIT.test(s) && DURATION.test(s),
  url: (s) => URL_FORMAT.test(s),
};

/**
 * ajv-formats' full formats with every regex-based one run on RE2 (linearRegExp): the regexes
 * are ours, but the strings they test are the caller's. Function formats (date, time, uri, …)
 * keep ajv-formats' code; `uri`'s regexes are swapped too. `regex` only parses the string with
 * V8 (it never runs it), which is linear.
 */
export function addLinearFormats(ajv: Ajv): void {
  addFormats(ajv);
  for (const [name, format] of Object.entries(fullFormats)) {
    const replaced = REPLACED[name];
    if (replaced) {
      ajv.addFormat(name, replaced);
      continue;
    }
    const rx = format instanceof RegExp ? format : undefined;
    if (rx) {
      const linear = linearRegExp(rx.source, rx.flags.replace(/[gu]/g, ''));
      ajv.addFormat(name, (s: string) => linear.test(s));
    }
  }
  const notFragment = linearRegExp('/|:');
  const uriBody = fullFormats.uri;
  const uriRegex = extractUriRegex();
  if (typeof uriBody === 'function' && uriRegex) ajv.addFormat('uri', (s: string) => notFragment.test(s) && uriRegex.test(s));
}

// ajv-formats keeps `uri`'s regex private; `uri-reference` is its superset, so rebuild `uri` from
// the same RFC 3986 grammar: a scheme is required.
function extractUriRegex(): { test(s: string): boolean } | undefined {
  const ref = fullFormats['uri-reference'];
  if (!(ref instanceof RegExp)) return undefined;
  const scheme = linearRegExp('^[a-z][a-z0-9+\\-.]*:', 'i');
  const linear = linearRegExp(ref.source, 'i');
  return { test: (s) => scheme.test(s) && linear.test(s) };
}
