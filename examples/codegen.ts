import { createHash } from 'node:crypto';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { scalars } from '@plans-gateway/client-kit';

/**
 * A client app's graphql-codegen setup: typed documents, and the manifest of its operations
 * (`persisted-documents.json`) that the gateway runs as trusted documents.
 */
export const clientCodegen: CodegenConfig['generates'] = {
  'examples/generated/': {
    preset: 'client',
    documents: ['examples/operations/*.graphql'],
    presetConfig: {
      fragmentMasking: false,
      // The hex SHA-256 of the document text: the hash Apollo's persisted-query protocol uses.
      persistedDocuments: {
        hashAlgorithm: (document: string) => createHash('sha256').update(document).digest('hex'),
      },
    },
    config: { scalars, enumsAsTypes: true, useTypeImports: true, importExtension: '.js' },
  },
};
