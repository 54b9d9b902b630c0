/**
 * The generator (`npm run codegen`) on a small description of the tests' own, so it runs where
 * the official one is absent: what it writes, and that `--check` (run by `npm test`) fails on a
 * stale output, naming the file, and passes when there is no description to compare with. The
 * generator runs in this process; one test runs the command itself, for its exit code.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { generate as generateIn } from '../scripts/generate.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../scripts/generate.ts', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'rest-contract-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DESCRIPTION = `openapi: 3.1.1
info: { title: Mini, version: 9.9.9 }
paths:
  /plans/{plan_id}/things:
    get:
      operationId: getThings
      parameters:
        - { name: plan_id, in: path, required: true, schema: { type: string } }
        - { name: last_knowledge_of_server, in: query, schema: { type: integer } }
        - { name: type, in: query, schema: { type: string, enum: [big, small] } }
      responses:
        "200":
          description: ok
          content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } }
    post:
      operationId: createThing
      parameters:
        - { name: plan_id, in: path, required: true, schema: { type: string } }
      requestBody:
        content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } }
        required: true
      responses:
        "201": { description: created }
components:
  schemas:
    Thing:
      type: object
      required: [id]
      properties:
        id: { type: string }
        color: { type: [string, "null"], enum: [red, blue, null] }
    Kind:
      type: string
      enum: [one, two]
`;

async function generate(description: string, out: string, check = false) {
  const { code, stdout, stderr } = await generateIn({
    source: description,
    out: pathToFileURL(`${out}/`),
    check,
  });
  return { code, output: stdout + stderr };
}

/** The command itself, as `npm test` runs it. */
async function command(description: string, out: string) {
  const args = ['--import', 'tsx', SCRIPT, '--out', out, '--check'];
  try {
    const { stdout, stderr } = await run(process.execPath, args, {
      env: { ...process.env, OPENAPI_DESCRIPTION: description },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('scripts/generate.ts', () => {
  const source = join(scratch, 'mini.yaml');
  writeFileSync(source, DESCRIPTION);

  it('writes the types with openapi-typescript and the route table and enums as data', async () => {
    expect(await generate(source, scratch)).toEqual({ code: 0, output: '' });
    const types = readFileSync(join(scratch, 'openapi.ts'), 'utf8');
    expect(types).toContain('from the Plans OpenAPI description 9.9.9');
    expect(types).toMatch(/getThings: \{/);
    expect(types).toMatch(/color\?: "red" \| "blue" \| null;/);
    const data = readFileSync(join(scratch, 'operations.ts'), 'utf8');
    expect(data).toContain(
      'getThings: {"method":"GET","path":"/plans/{plan_id}/things","query":["last_knowledge_of_server","type"],"body":false},',
    );
    expect(data).toContain(
      'createThing: {"method":"POST","path":"/plans/{plan_id}/things","query":[],"body":true},',
    );
    expect(data).toContain('"getThings.type": ["big","small"],');
    expect(data).toContain('"Thing.color": ["red","blue"],');
    expect(data).toContain('"Kind": ["one","two"],');
  });

  it('passes --check on what it wrote, and fails naming each file once the description moved', async () => {
    expect((await generate(source, scratch, true)).code).toBe(0);
    const moved = join(scratch, 'moved.yaml');
    writeFileSync(moved, DESCRIPTION.replace('enum: [one, two]', 'enum: [one, two, three]'));
    const stale = await generate(moved, scratch, true);
    expect(stale.code).toBe(1);
    expect(stale.output).toContain(`${scratch}/{openapi.ts,operations.ts} differ from ${moved}`);
    expect(stale.output).toContain('run npm run codegen');
    // --check never writes: the committed output stays as it was.
    expect(readFileSync(join(scratch, 'operations.ts'), 'utf8')).not.toContain('three');
  });

  it('fails --check on a hand edit of the output', async () => {
    const file = join(scratch, 'openapi.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}// edited\n`);
    const edited = await generate(source, scratch, true);
    expect(edited.code).toBe(1);
    expect(edited.output).toContain('{openapi.ts} differ');
  });

  it('passes --check without a description, saying that nothing was checked', async () => {
    const absent = await generate(join(scratch, 'absent.yaml'), scratch, true);
    expect(absent.code).toBe(0);
    expect(absent.output).toContain('absent.yaml not found');
    expect(absent.output).toContain('(not checked)');
  });

  it('refuses to write without a description, naming it', async () => {
    const absent = await generate(join(scratch, 'absent.yaml'), scratch);
    expect(absent.code).toBe(1);
    expect(absent.output).toContain('absent.yaml not found');
  });

  // A process of its own: node and tsx start, then openapi-typescript loads, which takes
  // seconds on a loaded machine (30 s did not suffice with two full runs at once on two cores).
  it('runs as a command that exits 1 on a stale output, reading OPENAPI_DESCRIPTION', async () => {
    const out = join(scratch, 'command');
    mkdirSync(out);
    expect((await generate(source, out)).code).toBe(0);
    const moved = join(scratch, 'moved-again.yaml');
    writeFileSync(moved, DESCRIPTION.replace('enum: [one, two]', 'enum: [one]'));
    const stale = await command(moved, out);
    expect(stale.code).toBe(1);
    expect(stale.output).toContain(`${out}/{openapi.ts,operations.ts} differ from ${moved}`);
  }, 120_000);
});
