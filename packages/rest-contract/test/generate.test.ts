/**
 * The generator (`npm run codegen`) on a small description of the tests' own, so it runs where
 * the official one is absent: what it writes, and that `--check` (run by `npm test`) fails on a
 * stale output, naming the file, and passes when there is no description to compare with. The
 * commands are functions (scripts/contract.ts); the scripts only print what they return.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate, PLACES, type Places, pinnedVersion } from '../scripts/contract.js';
import { SPECIFICATION_VERSION } from '../src/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'rest-contract-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const MINI_DESCRIPTION = `openapi: 3.1.1
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

const places: Places = {
  referenceDir: scratch,
  pinFile: join(scratch, 'pin.json'),
  generatedDir: join(scratch, 'out'),
};
mkdirSync(places.generatedDir);
writeFileSync(places.pinFile, '{ "version": "9.9.9" }\n');
writeFileSync(join(scratch, 'openapi-9.9.9.yaml'), MINI_DESCRIPTION);
const output = (name: string) => readFileSync(join(places.generatedDir, name), 'utf8');

// Each test runs openapi-typescript (and TypeScript's printer) in process, twice for --check: a
// few seconds alone, and several times that with two full runs at once on two cores, where the
// second test once ran out of 30 s. Liveness only.
describe('scripts/contract.ts generate', { timeout: 120_000 }, () => {
  it('writes the types with openapi-typescript, and the version, route table and enums as data', async () => {
    expect(await generate({ places })).toEqual({ code: 0, output: '' });
    const types = output('openapi.ts');
    expect(types).toContain('from the Plans OpenAPI description 9.9.9');
    expect(types).toMatch(/getThings: \{/);
    expect(types).toMatch(/color\?: "red" \| "blue" \| null;/);
    const data = output('operations.ts');
    expect(data).toContain('export const SPECIFICATION_VERSION = "9.9.9";');
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
    expect(await generate({ places, check: true })).toEqual({ code: 0, output: '' });
    const moved = join(scratch, 'moved.yaml');
    writeFileSync(moved, MINI_DESCRIPTION.replace('enum: [one, two]', 'enum: [one, two, three]'));
    const stale = await generate({ places, source: moved, check: true });
    expect(stale.code).toBe(1);
    expect(stale.output).toContain(
      `${places.generatedDir}/{openapi.ts,operations.ts} differ from ${moved}`,
    );
    expect(stale.output).toContain('run npm run codegen');
    // --check never writes: the committed output stays as it was.
    expect(output('operations.ts')).not.toContain('three');
  });

  it('fails --check on a hand edit of the output', async () => {
    writeFileSync(join(places.generatedDir, 'openapi.ts'), `${output('openapi.ts')}// edited\n`);
    const edited = await generate({ places, check: true });
    expect(edited.code).toBe(1);
    expect(edited.output).toContain('{openapi.ts} differ');
  });

  it('fails when the pinned file says it is another version', async () => {
    const other = { ...places, pinFile: join(scratch, 'other-pin.json') };
    writeFileSync(other.pinFile, '{ "version": "9.9.8" }\n');
    writeFileSync(join(scratch, 'openapi-9.9.8.yaml'), MINI_DESCRIPTION);
    const result = await generate({ places: other, check: true });
    expect(result.code).toBe(1);
    expect(result.output).toContain('says it is version 9.9.9, but');
    expect(result.output).toContain('pins 9.9.8');
  });

  it('passes --check without a description, saying that nothing was checked', async () => {
    const absent = await generate({ places, source: join(scratch, 'absent.yaml'), check: true });
    expect(absent.code).toBe(0);
    expect(absent.output).toContain('absent.yaml not found');
    expect(absent.output).toContain('(not checked)');
  });
});

describe('the pin', () => {
  it('is the version the committed contract was generated from, and the one it exports', () => {
    expect(pinnedVersion(PLACES)).toBe(SPECIFICATION_VERSION);
    expect(readFileSync(join(PLACES.generatedDir, 'openapi.ts'), 'utf8')).toContain(
      `description ${SPECIFICATION_VERSION}\n`,
    );
  });
});
