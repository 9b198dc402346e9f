#!/usr/bin/env node
// Installed bin: runs the compiled CLI (`npm run build` produces dist/). The V8 flags the service needs
// (src/v8-flags.ts) are set first, alone: a static import of the CLI would load every module (and run GCs) before
// any code of theirs runs.
await import('../dist/v8-flags.js');
await import('../dist/cli.js');
