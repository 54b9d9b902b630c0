/**
 * `npm run codegen` (here: `npm run generate`): writes `src/generated/` from the pinned release of
 * the OpenAPI description (see contract.ts). `--check` regenerates in memory and fails naming the
 * stale file. `OPENAPI_DESCRIPTION=<file>` reads another copy.
 */
import { generate } from './contract.js';

const result = await generate({
  check: process.argv.includes('--check'),
  ...(process.env.OPENAPI_DESCRIPTION ? { source: process.env.OPENAPI_DESCRIPTION } : {}),
});
process.stdout.write(result.output);
process.exitCode = result.code;
