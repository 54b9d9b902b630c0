/**
 * graphql-codegen: prints `schema.graphql` from the Pothos schema and generates typed documents
 * for the operations the benchmark, the examples and the tests share (`bench/*.graphql`).
 * `npm run codegen` writes them; `npm test` fails when either is stale (`--check`).
 */
import type { CodegenConfig } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';
import { schema } from './src/schema/index.js';

const config: CodegenConfig = {
  schema: printSchema(schema),
  documents: ['bench/*.graphql'],
  generates: {
    'schema.graphql': {
      plugins: ['schema-ast'],
      config: { sort: false },
    },
    'test/generated/operations.ts': {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: {
          Date: 'string',
          DateTime: 'string',
          UUID: 'string',
          SafeInt: 'number',
          Latitude: 'number',
          Longitude: 'number',
          Milliunits: 'number',
          PlanId: 'string',
          MonthSelector: 'string',
        },
      },
    },
  },
};

export default config;
