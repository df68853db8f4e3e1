#!/usr/bin/env node
// The `thread-host` command as installed (dist/bundle/cli.js): runs the CLI bundle from V8's
// code cache (code-cache.ts). Everything else lives in the bundle, so this stays a few lines.
import { fileURLToPath } from 'node:url';
import { compileBundle, runBundle } from './code-cache.js';

const bundle = fileURLToPath(new URL('./thread-host.cjs', import.meta.url));
runBundle(bundle, compileBundle(bundle).script);
