#!/usr/bin/env node
// The installed `switchboard` command: the compiled CLI (run `npx tsc -b tsconfig.build.json` in a checkout).
require('../dist/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
