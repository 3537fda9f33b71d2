// Validates a .glb with the Khronos glTF Validator (npm gltf-validator, installed into
// web/node_modules by `cargo xtask setup`, which `cargo xtask test` runs first): prints the report's issues and exits 1 on any error.
// Usage: node validate_glb.mjs REPO_ROOT FILE.glb
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [root, file] = process.argv.slice(2);
const require = createRequire(join(root, 'web', 'package.json'));
const validator = require('gltf-validator');
const report = await validator.validateBytes(new Uint8Array(readFileSync(file)));
const { numErrors, numWarnings, messages } = report.issues;
console.log(JSON.stringify({ numErrors, numWarnings, messages }, null, 1));
process.exit(numErrors > 0 ? 1 : 0);
