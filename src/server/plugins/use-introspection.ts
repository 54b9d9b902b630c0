import type { ASTVisitor, ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';

/**
 * With introspection off, a document selecting `__schema` or `__type` is refused at validation,
 * before anything runs, and so is the subgraph's `_service` (its SDL is the schema too).
 * `__typename` stays allowed: clients need it to tell union members apart, and it reveals
 * nothing about the schema.
 */
export function useIntrospection({ enabled = true }: { enabled?: boolean } = {}): Plugin {
  if (enabled) return {};
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(noSchemaIntrospection);
    },
  };
}

/** The fields that reveal the schema, and the committed file that publishes it instead. */
const PUBLISHED: ReadonlyMap<string, string> = new Map([
  ['__schema', 'schema.graphql'],
  ['__type', 'schema.graphql'],
  ['_service', 'subgraph.graphql'],
]);

function noSchemaIntrospection(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      const name = node.name.value;
      const published = PUBLISHED.get(name);
      if (!published) return;
      context.reportError(
        gatewayError(
          `Introspection is turned off on this gateway, so "${name}" cannot be selected; the schema is published as ${published}.`,
          'INTROSPECTION_DISABLED',
          { nodes: node },
        ),
      );
    },
  };
}
