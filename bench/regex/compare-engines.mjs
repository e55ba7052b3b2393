// Compares the linear-time regex engines installed for ajv's `code.regExp` hook against V8's
// RegExp: which JSON-Schema patterns each accepts and agrees on, and what a `.test()` costs.
// Run: npx node bench/regex/compare-engines.mjs   (single process, ~10 s)
import { RE2JS } from 're2js';
import { RE2 } from 're2-wasm';

const engines = {
  v8: (p) => new RegExp(p, 'u'),
  re2js: (p) => RE2JS.compile(RE2JS.translateRegExp(p)),
  're2-wasm': (p) => new RE2(p, 'u'),
};

// Patterns seen in real tool schemas (zod 4 / SDK output, the SaaS fixture) plus edge syntax.
const cases = [
  [
    'email (zod 4)',
    "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
    ['a.b@c.io', 'x@y'],
  ],
  [
    'uuid (zod 4)',
    '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$',
    ['123e4567-e89b-12d3-a456-426614174000', 'nope'],
  ],
  ['issue key', '^[A-Z][A-Z0-9]+-\\d+$', ['ABC-12', 'abc-12']],
  ['sha1', '^[0-9a-f]{40}$', ['a'.repeat(40), 'g'.repeat(40)]],
  ['prefix', '^pi_', ['pi_123', 'xpi_']],
  ['unanchored', 'foo', ['xfooy', 'bar']],
  ['escaped slash', '^a\\/b$', ['a/b', 'ab']],
  ['\\u escape', '^caf\\u00e9$', ['café', 'cafe']],
  ['\\u{} escape', '^\\u{1F600}$', ['😀', 'x']],
  ['astral dot', '^.$', ['😀', 'ab']],
  ['unicode class', '^\\p{L}+$', ['héllo', 'h3']],
  ['named group', '^(?<y>\\d{4})$', ['2024', '24']],
  ['\\s is unicode in JS', '^\\s$', ['\u00a0', 'x']],
  ['\\v', '^\\v$', ['\u000b', 'x']],
  ['dot vs \\r', '^.$', ['\r', '\n']],
  ['$ before final \\n', '^a$', ['a', 'a\n']],
  ['non-greedy', '^a+?b$', ['aab', 'ba']],
  ['\\b', '\\bword\\b', ['a word', 'swordy']],
  ['class with ]', '^[\\]a]+$', [']a', 'b']],
  ['lookahead', '^(?=.*\\d)\\w+$', ['a1', 'ab']],
  ['negative lookahead', '^(?!x)\\w+$', ['ab', 'xb']],
  ['lookbehind', '(?<=a)b', ['ab', 'cb']],
  ['backreference', '^(a)\\1$', ['aa', 'ab']],
  ['catastrophic', '^(a+)+$', ['aaaa', 'a'.repeat(40) + '!']],
];

const pad = (s, n) => String(s).padEnd(n);
console.log('## correctness (compiles? / agrees with V8 on the samples)\n');
console.log(
  `| ${pad('case', 22)} | ${Object.keys(engines)
    .slice(1)
    .map((e) => pad(e, 28))
    .join(' | ')} |`,
);
console.log(
  `|${'-'.repeat(24)}|${Object.keys(engines)
    .slice(1)
    .map(() => '-'.repeat(30))
    .join('|')}|`,
);
for (const [name, pattern, samples] of cases) {
  const expected = name === 'catastrophic' ? [true, false] : samples.map((s) => engines.v8(pattern).test(s));
  const cells = [];
  for (const [engine, make] of Object.entries(engines)) {
    if (engine === 'v8') continue;
    let rx;
    try {
      rx = make(pattern);
    } catch (err) {
      cells.push(
        `refused: ${String(err.message ?? err)
          .split('\n')[0]
          .slice(0, 18)}`,
      );
      continue;
    }
    const got = samples.map((s) => rx.test(s));
    cells.push(got.every((g, i) => g === expected[i]) ? 'ok' : `DIFFERS ${JSON.stringify(got)} vs ${JSON.stringify(expected)}`);
  }
  console.log(`| ${pad(name, 22)} | ${cells.map((c) => pad(c, 28)).join(' | ')} |`);
}

function bench(make, pattern, inputs, iterations) {
  const rx = make(pattern);
  for (let i = 0; i < 2000; i++) rx.test(inputs[i % inputs.length]);
  const t0 = process.hrtime.bigint();
  let hits = 0;
  for (let i = 0; i < iterations; i++) if (rx.test(inputs[i % inputs.length])) hits++;
  const ns = Number(process.hrtime.bigint() - t0) / iterations;
  return { ns, hits };
}
function compileCost(make, pattern, n) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) make(pattern + `|z{${i % 7}}`);
  return Number(process.hrtime.bigint() - t0) / n / 1000;
}

console.log('\n## cost per .test() on normal patterns (ns, lower is better)\n');
const perf = [
  ['issue key', '^[A-Z][A-Z0-9]+-\\d+$', ['ABC-1234', 'abc-12', 'PROJ-99']],
  ['email (zod 4)', cases[0][1], ['someone.else@example.com', 'bad@', 'a.b.c@sub.example.org']],
  ['uuid (zod 4)', cases[1][1], ['123e4567-e89b-12d3-a456-426614174000', 'x']],
  ['sha1', '^[0-9a-f]{40}$', ['0123456789abcdef0123456789abcdef01234567']],
  ['1 KiB text, ^[^<>]*$', '^[^<>]*$', ['x'.repeat(1024)]],
];
const N = 200_000;
console.log(`| pattern | ${Object.keys(engines).join(' | ')} | re2js / v8 | re2-wasm / v8 |`);
console.log(
  `|---|${Object.keys(engines)
    .map(() => '---')
    .join('|')}|---|---|`,
);
for (const [name, pattern, inputs] of perf) {
  const r = Object.fromEntries(Object.entries(engines).map(([e, make]) => [e, bench(make, pattern, inputs, N).ns]));
  console.log(
    `| ${name} | ${Object.values(r)
      .map((v) => v.toFixed(0))
      .join(' | ')} | ${(r.re2js / r.v8).toFixed(1)}× | ${(r['re2-wasm'] / r.v8).toFixed(1)}× |`,
  );
}

console.log('\n## compile cost (µs per pattern, email-sized)\n');
console.log(
  `| ${Object.keys(engines).join(' | ')} |\n|${Object.keys(engines)
    .map(() => '---')
    .join('|')}|`,
);
console.log(
  `| ${Object.values(engines)
    .map((make) => compileCost(make, cases[0][1], 2000).toFixed(1))
    .join(' | ')} |`,
);

console.log('\n## ^(a+)+$ against n×"a"+"!" (ms for one .test())\n');
console.log('| n | v8 | re2js | re2-wasm |\n|---|---|---|---|');
for (const n of [16, 20, 24, 10_000]) {
  const input = 'a'.repeat(n) + '!';
  const row = [];
  for (const [e, make] of Object.entries(engines)) {
    if (e === 'v8' && n > 24) {
      row.push('(not run: exponential)');
      continue;
    }
    const rx = make('^(a+)+$');
    const t0 = process.hrtime.bigint();
    rx.test(input);
    row.push((Number(process.hrtime.bigint() - t0) / 1e6).toFixed(2));
  }
  console.log(`| ${n} | ${row.join(' | ')} |`);
}
