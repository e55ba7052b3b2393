// Commit subjects stay at 72 characters or fewer (issue #43's house style), checked for every
// commit since the one named in .commit-style-since, so history before the rule is left alone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 72;
const since = readFileSync(new URL('../.commit-style-since', import.meta.url), 'utf8').trim();
const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

let log;
try {
  git('cat-file', '-e', `${since}^{commit}`);
  log = git('log', '--format=%h%x09%s', `${since}..HEAD`);
} catch {
  // A shallow clone or an export without history cannot be checked; say so rather than fail.
  console.warn(`commit subjects: ${since} is not in this checkout's history; not checked`);
  process.exit(0);
}
const long = log
  .split('\n')
  .filter(Boolean)
  .map((line) => line.split('\t'))
  .filter(([, subject]) => subject.length > MAX);
for (const [hash, subject] of long) console.error(`${hash}: subject is ${subject.length} characters (at most ${MAX}): ${subject}`);
if (long.length > 0) process.exit(1);
