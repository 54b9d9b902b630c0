/**
 * `npm run contract:update -- <openapi-x.y.z.yaml>`: moves the contract to a new release of the
 * OpenAPI description and prints what changed as a checklist (see contract.ts, changes.ts and
 * docs/upstream.md). A relative path is taken from where npm was started.
 */
import { resolve } from 'node:path';
import { update } from './contract.js';

const [file, ...extra] = process.argv.slice(2);
if (file === undefined || extra.length > 0) {
  process.stderr.write(
    'usage: npm run contract:update -- <path to openapi-<version>.yaml>\n' +
      '  (for example ../shared/reference/openapi-1.87.0.yaml)\n',
  );
  process.exitCode = 2;
} else {
  const result = await update(resolve(process.env.INIT_CWD ?? process.cwd(), file));
  (result.code === 0 ? process.stdout : process.stderr).write(result.output);
  process.exitCode = result.code;
}
