// conformance-checks.mjs DIR ID... : reads the checks.json files the conformance suite wrote
// under DIR (its -o option) and exits 1 unless every named check is there with status SUCCESS.
// A scenario of the suite also runs checks on fixture tools this server does not have, so the
// scenario as a whole fails; the checks that apply to /mcp are required one by one. Every
// check's status is printed, for docs/mcp.md.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const [dir, ...required] = process.argv.slice(2);
const checks = [];
for (const entry of await readdir(dir, { recursive: true })) {
  if (path.basename(entry) === 'checks.json') {
    checks.push(...JSON.parse(await readFile(path.join(dir, entry), 'utf8')));
  }
}
for (const c of checks) {
  if (c.status !== 'INFO') console.log(`${c.status.padEnd(8)} ${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ''}`);
}
let failed = false;
for (const id of required) {
  const got = checks.filter((c) => c.id === id);
  if (got.length === 0 || got.some((c) => c.status !== 'SUCCESS')) {
    console.error(`conformance: ${id} did not pass (${got.map((c) => c.status).join(', ') || 'not run'})`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
