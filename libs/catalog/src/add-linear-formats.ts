import type Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats';
import { linearRegExp, type LinearRegExp } from './linear-reg-exp';

/** Compiles on first use: most schemas use no format, and a snapshot load should not pay for all of them. */
function lazy(pattern: string, flags = ''): { test(s: string): boolean } {
  let rx: LinearRegExp | undefined;
  return { test: (s) => (rx ??= linearRegExp(pattern, flags)).test(s) };
}

// ajv-formats' regexes that use lookahead, which RE2 lacks. Each is replaced by an equivalent
// check built from RE2 pieces plus plain string tests, so no format runs on V8's backtracking
// engine either.
const HOSTNAME = lazy('^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\\.?$', 'i');
const DURATION = lazy('^P(?:(?:\\d+Y)?(?:\\d+M)?(?:\\d+D)?(?:T(?:\\d+H)?(?:\\d+M)?(?:\\d+S)?)?|(?:\\d+W)?)$');
const T_WITHOUT_DIGIT = lazy('T(?:\\D|$)');
// `url` (deprecated in ajv-formats): its private-address lookaheads are dropped — a format says
// what a string looks like, and SSRF checks belong where URLs are fetched, not in validation.
const URL_FORMAT = lazy(
  '^(?:https?|ftp)://(?:\\S+(?::\\S*)?@)?(?:(?:[1-9]\\d?|1\\d\\d|2[01]\\d|22[0-3])(?:\\.(?:1?\\d{1,2}|2[0-4]\\d|25[0-5])){2}(?:\\.(?:[1-9]\\d?|1\\d\\d|2[0-4]\\d|25[0-4]))|(?:(?:[a-z0-9\\x{00a1}-\\x{ffff}]+-)*[a-z0-9\\x{00a1}-\\x{ffff}]+)(?:\\.(?:[a-z0-9\\x{00a1}-\\x{ffff}]+-)*[a-z0-9\\x{00a1}-\\x{ffff}]+)*(?:\\.(?:[a-z\\x{00a1}-\\x{ffff}]{2,})))(?::\\d{2,5})?(?:/\\S*)?$',
  'i',
);
const URI_SCHEME = lazy('^[a-z][a-z0-9+\\-.]*:', 'i');
const NOT_URI_FRAGMENT = lazy('/|:');
const MAX_HOSTNAME = 253;

const REPLACED: Record<string, (s: string) => boolean> = {
  hostname: (s) => s.length >= 1 && s.length <= MAX_HOSTNAME + (s.endsWith('.') ? 1 : 0) && HOSTNAME.test(s),
  duration: (s) => s !== 'P' && !T_WITHOUT_DIGIT.test(s) && DURATION.test(s),
  url: (s) => URL_FORMAT.test(s),
};

/**
 * ajv-formats' full formats with every regex-based one run on RE2 (linearRegExp, compiled on
 * first use): the regexes are ours, but the strings they test are the caller's. Function formats
 * (date, time, …) keep ajv-formats' code; `uri` is rebuilt from `uri-reference`'s RFC 3986
 * grammar plus a required scheme. `regex` only parses the string with V8 (it never runs it),
 * which is linear.
 */
export function addLinearFormats(ajv: Ajv): void {
  addFormats(ajv);
  for (const [name, format] of Object.entries(fullFormats)) {
    const replaced = REPLACED[name];
    if (replaced) {
      ajv.addFormat(name, replaced);
      continue;
    }
    if (format instanceof RegExp) {
      const linear = lazy(format.source, format.flags.replace(/[gu]/g, ''));
      ajv.addFormat(name, (s: string) => linear.test(s));
    }
  }
  const ref = fullFormats['uri-reference'];
  if (ref instanceof RegExp) {
    const reference = lazy(ref.source, 'i');
    ajv.addFormat('uri', (s: string) => NOT_URI_FRAGMENT.test(s) && URI_SCHEME.test(s) && reference.test(s));
  }
}
