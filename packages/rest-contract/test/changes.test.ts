/**
 * `npm run contract:update`: the checklist of what changed between two releases of the
 * description, and the command that moves the pin. In-process and on scratch folders; the real
 * 1.85.0 → 1.86.0 step reads the reference files beside the clone.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { describeChanges, formatChecklist } from '../scripts/changes.js';
import { descriptionFile, PLACES, type Places, update } from '../scripts/contract.js';

const scratch = mkdtempSync(join(tmpdir(), 'rest-contract-changes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const OLD = `openapi: 3.1.1
info: { title: Mini, version: 1.0.0, description: 'The money API.' }
tags:
  - { name: Things, description: The things of a plan }
paths:
  /things:
    get:
      operationId: getThings
      summary: List things
      parameters:
        - { name: since, in: query, schema: { type: string } }
      responses:
        "200": { description: ok }
  /things/{id}:
    delete:
      operationId: deleteThing
      responses:
        "200": { description: ok }
components:
  schemas:
    Thing:
      type: object
      required: [id]
      properties:
        id: { type: string }
        size: { type: string, enum: [small, big] }
        weight: { type: integer }
    Old: { type: string }
`;

const NEW = `openapi: 3.1.1
info: { title: Mini, version: 1.1.0, description: 'The money API, in milliunits.' }
tags:
  - { name: Things, description: The things of a plan }
paths:
  /things:
    get:
      operationId: getThings
      summary: List the things
      parameters:
        - { name: since, in: query, schema: { type: string } }
        - { name: kind, in: query, required: true, schema: { type: string, enum: [a, b] } }
      responses:
        "200": { description: ok }
        "429": { description: slow down }
    post:
      operationId: createThing
      requestBody: { content: { application/json: { schema: { $ref: "#/components/schemas/Thing" } } } }
      responses:
        "201": { description: created }
components:
  schemas:
    Thing:
      type: object
      required: [id, size]
      properties:
        id: { type: string }
        size: { type: string, enum: [small, medium] }
        weight: { type: [integer, "null"], format: int64 }
        color: { type: string, description: What it looks like. }
    New: { type: integer }
`;

describe('describeChanges', () => {
  it('lists every kind of change under its group, subtrees once, lists matched by meaning', () => {
    const lines = describeChanges(parse(OLD), parse(NEW)).map((c) => `${c.group}: ${c.text}`);
    expect(lines).toEqual([
      'Operations: getThings (GET /things): parameter query kind added (string, enum a | b, required)',
      'Operations: createThing (POST /things): operation added',
      'Operations: deleteThing (DELETE /things/{id}): operation removed',
      'Statuses: getThings (GET /things): status 429 added',
      'Schemas: Old: schema removed (string)',
      'Schemas: New: schema added (integer)',
      'Fields: Thing: now required: size',
      'Fields: Thing.weight: type: integer → integer | null',
      'Fields: Thing.weight: format added (int64)',
      'Fields: Thing.color: field added (string, optional)',
      'Enums: Thing.size: values + medium - big',
      'Descriptions: info.description: - "API." + "API, in milliunits."',
      'Descriptions: getThings (GET /things) summary: + "the"',
      'Descriptions: Thing.color: described as "What it looks like."',
    ]);
  });

  it('says a document compared with itself has no changes', () => {
    expect(describeChanges(parse(NEW), parse(NEW))).toEqual([]);
    expect(formatChecklist(parse(NEW), parse(NEW), [])).toContain(
      'Nothing changed but the version.',
    );
  });
});

const REFERENCE_85 = descriptionFile(PLACES, '1.85.0');
const REFERENCE_86 = descriptionFile(PLACES, '1.86.0');
const haveReference = existsSync(REFERENCE_85) && existsSync(REFERENCE_86);

describe.runIf(haveReference)('1.85.0 → 1.86.0, the published step', () => {
  const before = haveReference ? parse(readFileSync(REFERENCE_85, 'utf8')) : null;
  const after = haveReference ? parse(readFileSync(REFERENCE_86, 'utf8')) : null;

  it('names the recurring targets, the target removal, the corrected status and each description', () => {
    const changes = describeChanges(before, after);
    const texts = changes.map((c) => `${c.group}: ${c.text}`);
    expect(texts).toContain(
      'Statuses: updateTransactions (PATCH /plans/{plan_id}/transactions): status 209 → 200',
    );
    expect(texts).toContain(
      'Fields: SaveCategory.goal_frequency: field added (string, enum monthly | weekly | yearly, optional)',
    );
    expect(texts).toContain(
      'Enums: SaveCategory.goal_frequency: new enumeration monthly, weekly, yearly',
    );
    expect(texts).toContain(
      'Descriptions: SaveCategory.goal_target: description + "When updating a category, passing null removes any existing target."',
    );
    const frequency = texts.find((t) => t.startsWith('Descriptions: SaveCategory.goal_frequency'));
    for (const rule of [
      'Requires goal_target',
      'Cannot be combined with goal_target_date',
      'Credit Card Payment',
      'Omit to leave',
    ])
      expect(frequency).toContain(rule);
    // The rest is descriptions: the API's own, and one per tag that gained or grew one.
    const described = changes
      .filter((c) => c.group === 'Descriptions')
      .map((c) => c.text.split(':')[0]);
    expect(described).toEqual([
      'info.description',
      'tag User',
      'tag Plans',
      'tag Accounts',
      'tag Categories',
      'tag Payees',
      'tag Money Movements',
      'tag Transactions',
      'tag Scheduled Transactions',
      'SaveCategory.goal_target',
      'SaveCategory.goal_frequency',
    ]);
    expect(changes).toHaveLength(14);
    expect(changes.filter((c) => ['Operations', 'Schemas', 'Other'].includes(c.group))).toEqual([]);
  });

  it('moves a pin from 1.85.0 to 1.86.0, regenerating the contract and printing the checklist', async () => {
    const places: Places = {
      referenceDir: PLACES.referenceDir,
      pinFile: join(scratch, 'pin.json'),
      generatedDir: join(scratch, 'generated'),
    };
    mkdirSync(places.generatedDir);
    writeFileSync(places.pinFile, '{ "version": "1.85.0" }\n');
    const result = await update(REFERENCE_86, places);
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/^Upstream description 1\.85\.0 → 1\.86\.0: 14 changes\n/);
    expect(result.output).toContain(
      '- [ ] updateTransactions (PATCH /plans/{plan_id}/transactions): status 209 → 200',
    );
    expect(result.output).toContain('The contract now follows 1.86.0 (was 1.85.0)');
    expect(result.output).toContain('npm run codegen');
    expect(JSON.parse(readFileSync(places.pinFile, 'utf8'))).toEqual({ version: '1.86.0' });
    const data = readFileSync(join(places.generatedDir, 'operations.ts'), 'utf8');
    expect(data).toContain('export const SPECIFICATION_VERSION = "1.86.0";');
    expect(data).toContain('"SaveCategory.goal_frequency": ["monthly","weekly","yearly"],');
  });
});

describe('update refuses what it cannot follow, and changes nothing then', () => {
  const places: Places = {
    referenceDir: join(scratch, 'reference'),
    pinFile: join(scratch, 'mini-pin.json'),
    generatedDir: join(scratch, 'mini-generated'),
  };
  mkdirSync(places.referenceDir);
  mkdirSync(places.generatedDir);
  writeFileSync(places.pinFile, '{ "version": "1.0.0" }\n');
  const pin = () => readFileSync(places.pinFile, 'utf8');

  it('a file that is not where codegen reads it', async () => {
    const elsewhere = join(scratch, 'openapi-1.1.0.yaml');
    writeFileSync(elsewhere, NEW);
    const result = await update(elsewhere, places);
    expect(result).toEqual({
      code: 2,
      output: `rest-contract: put the description at ${join(places.referenceDir, 'openapi-1.1.0.yaml')} (where npm run codegen and npm test read it), then run this again with that path\n`,
    });
    expect(pin()).toContain('1.0.0');
  });

  it('a release whose predecessor is gone (nothing to compare with)', async () => {
    const next = descriptionFile(places, '1.1.0');
    copyFileSync(join(scratch, 'openapi-1.1.0.yaml'), next);
    const result = await update(next, places);
    expect(result.code).toBe(2);
    expect(result.output).toContain('the description the contract follows now (1.0.0) is not at');
    expect(pin()).toContain('1.0.0');
  });

  it('a file that is not a description, or has no usable version', async () => {
    const broken = descriptionFile(places, '1.2.0');
    writeFileSync(broken, 'just: [text');
    await expect(update(broken, places)).rejects.toThrow(
      /openapi-1\.2\.0\.yaml is not a readable YAML document/,
    );
    writeFileSync(broken, 'info: { version: 1.2.0 }\n');
    await expect(update(broken, places)).rejects.toThrow(/is not an OpenAPI description/);
    const odd = descriptionFile(places, 'next');
    writeFileSync(odd, NEW.replace('version: 1.1.0', 'version: next'));
    expect((await update(odd, places)).output).toContain("has info.version 'next'");
    expect(pin()).toContain('1.0.0');
  });

  it('and moves the pin once both releases are in place', async () => {
    writeFileSync(descriptionFile(places, '1.0.0'), OLD);
    const result = await update(descriptionFile(places, '1.1.0'), places);
    expect(result.code).toBe(0);
    expect(result.output).toContain('Upstream description 1.0.0 → 1.1.0: 14 changes');
    expect(pin()).toBe('{\n  "version": "1.1.0"\n}\n');
  });
});
