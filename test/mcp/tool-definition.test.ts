/**
 * Tools made from GraphQL documents: names, descriptions (the document's comment, variable notes,
 * the schema's field descriptions), annotations from the operation type and hints, output schemas
 * of unions, what cannot be a tool, and the trusted-documents manifest's operations as tools.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/mcp/catalog.js';
import { NAME_NOTE } from '../../src/mcp/names.js';
import { beforeFileOf, snakeCase, toolFromDocument } from '../../src/mcp/tool-definition.js';
import { inToolWords } from '../../src/mcp/tool-runner.js';
import { schema } from '../../src/schema/index.js';

const MANIFEST = fileURLToPath(
  new URL('../../examples/generated/persisted-documents.json', import.meta.url),
);

describe('toolFromDocument', () => {
  it('names, describes and annotates a mutation from its comment and the schema', () => {
    const tool = toolFromDocument(
      schema,
      `# Renames a payee everywhere.
# $name: The new name, as people will see it.
# mcp: idempotent
mutation RenamePayee($planId: PlanId!, $payeeId: UUID!, $name: String!) {
  updatePayee(planId: $planId, payeeId: $payeeId, input: { name: $name }) {
    __typename
    ... on UpdatePayeePayload { payee { id name } }
    ... on Error { message }
  }
}`,
      'test',
    );
    expect(tool.name).toBe('rename_payee');
    expect(tool.title).toBe('Rename payee');
    // The comment, then what a write risks: no REST paths or GraphQL field names, not tools.
    expect(tool.description).toBe(
      'Renames a payee everywhere.\n\nWrites to the plan: call it once per intended change; when its outcome is unknown, check before calling again.',
    );
    expect(tool.annotations).toEqual({
      title: 'Rename payee',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.name?.description).toBe('The new name, as people will see it.');
    // An id argument also takes a name, and says so (without speaking of REST).
    expect(properties.payeeId?.description).toBe(`The id of the payee. ${NAME_NOTE}`);
    expect(tool.inputSchema.required).toEqual(['planId', 'payeeId', 'name']);
    // The result union: one variant per possible type, told apart by __typename.
    const result = (tool.outputSchema.properties as Record<string, Record<string, unknown>>)
      .updatePayee!;
    const variants = (result.anyOf as Record<string, unknown>[])[0]!.anyOf as {
      properties: { __typename: { const: string } };
    }[];
    expect(variants.map((v) => v.properties.__typename.const).sort()).toEqual([
      'NotFoundError',
      'ReadOnlyScopeError',
      'UpdatePayeePayload',
      'ValidationError',
      'WriteConflict',
    ]);
  });

  it('refuses what cannot be a tool, naming the document', () => {
    expect(() => toolFromDocument(schema, '{ plans { id } }', 'a.graphql')).toThrow(
      'a.graphql: a tool is one named operation; found 1',
    );
    expect(() =>
      toolFromDocument(
        schema,
        'subscription S { planChanged(planId: "x") { planId } }',
        's.graphql',
      ),
    ).toThrow('s.graphql: a subscription cannot be a tool');
    expect(() => toolFromDocument(schema, 'query Q { nothing }', 'q.graphql')).toThrow(
      /^q\.graphql: Cannot query field "nothing"/,
    );
  });

  it('reads a `# before:` line as the before-read a write shares, else its own file', () => {
    const header = '# Updates.\n# mcp: confirm\n# before: transactions.graphql\nmutation M { x }';
    expect(beforeFileOf(header, 'update-things.graphql')).toBe('transactions.graphql');
    expect(beforeFileOf('# Updates.\nmutation M { x }', 'update-things.graphql')).toBe(
      'update-things.graphql',
    );
  });

  it('writes operation names in snake_case', () => {
    expect(snakeCase('ListPlans')).toBe('list_plans');
    expect(snakeCase('getHTTPStatus')).toBe('get_http_status');
  });
});

describe('buildCatalog', () => {
  it('offers the curated tools, and the manifest operations only when asked', () => {
    const curated = buildCatalog(schema, { trustedDocumentTools: false }, MANIFEST);
    expect([...curated.tools.keys()].sort()).toEqual([
      'approve_transactions',
      'assign_to_category',
      'categorize_transactions',
      'create_transaction',
      'delete_transaction',
      'get_transaction',
      'import_transactions',
      'list_months',
      'list_payees',
      'list_plans',
      'month_budget',
      'plan_overview',
      'scheduled_transactions',
      'search_transactions',
      'update_category_target',
      'update_transactions',
    ]);
    const withManifest = buildCatalog(schema, { trustedDocumentTools: true }, MANIFEST);
    expect([...withManifest.tools.keys()]).toEqual(
      expect.arrayContaining(['plan_header', 'rename_payee', 'transactions_page']),
    );
    // A deferred operation answers in parts: a tool answers once.
    expect(withManifest.tools.has('deferred_dashboard')).toBe(false);
    expect(withManifest.skipped).toEqual([
      expect.stringMatching(/@defer and @stream cannot be a tool$/),
    ]);
  });

  it('gives the three list writes the one before-read their `# before:` line names', () => {
    const { tools } = buildCatalog(schema, { trustedDocumentTools: false }, MANIFEST);
    for (const name of ['update_transactions', 'categorize_transactions', 'approve_transactions']) {
      const tool = tools.get(name);
      expect(tool?.before?.operationName, name).toBe('TransactionsBefore');
      expect(tool?.beforeEach, name).toBe('transactions');
      // The line names a file; it is not part of what the model reads.
      expect(tool?.description, name).not.toContain('before:');
    }
    // A write without the line still finds its same-named twin.
    expect(tools.get('delete_transaction')?.before?.operationName).toBe('DeleteTransactionBefore');
    expect(tools.get('create_transaction')?.before).toBeUndefined();
  });

  it('describes the curated tools without REST paths, GraphQL root fields or wrong defaults', () => {
    const { tools } = buildCatalog(schema, { trustedDocumentTools: false }, MANIFEST);
    const roots = [
      ...Object.keys(schema.getQueryType()!.getFields()),
      ...Object.keys(schema.getMutationType()!.getFields()),
    ].filter((name) => !tools.has(name));
    for (const tool of tools.values()) {
      const text = JSON.stringify([tool.description, tool.inputSchema]);
      expect(text, tool.name).not.toMatch(/REST `|\/plans\/\{|GET \/|POST \/|PATCH \/|PUT \//);
      for (const root of roots) expect(text, `${tool.name}: ${root}`).not.toContain(`\`${root}\``);
      // A default the description states is the one the input schema declares.
      const stated = /`first` items \((\d+) unless given\)/.exec(tool.description)?.[1];
      if (stated) {
        const first = (tool.inputSchema.properties as Record<string, { default?: unknown }>).first;
        expect(first?.default, tool.name).toBe(Number(stated));
      }
    }
  });
});

describe('inToolWords', () => {
  it('names the tool where an error names the GraphQL mutation it runs', () => {
    const { tools } = buildCatalog(schema, { trustedDocumentTools: false }, MANIFEST);
    const assign = tools.get('assign_to_category')!;
    expect(
      inToolWords('Cannot run `updateMonthCategory`: updateMonthCategory needs a month.', assign),
    ).toBe('Cannot run assign_to_category: assign_to_category needs a month.');
    // A query's `plan` is not renamed: it is not a mutation a model could mistake for a tool.
    expect(inToolWords('plan not found', tools.get('month_budget')!)).toBe('plan not found');
  });
});
