#!/usr/bin/env node
// Installed bin: runs the compiled CLI (`npm run build` produces dist/).
import '../dist/cli.js';
