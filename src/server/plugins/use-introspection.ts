import { type ASTVisitor, GraphQLError, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const INTROSPECTION_DISABLED = 'INTROSPECTION_DISABLED';

/**
 * With introspection off, a document selecting `__schema` or `__type` is refused at validation,
 * before anything runs. `__typename` stays allowed: clients need it to tell union members
 * apart, and it reveals nothing about the schema.
 */
export function useIntrospection({ enabled = true }: { enabled?: boolean } = {}): Plugin {
  if (enabled) return {};
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(noSchemaIntrospection);
    },
  };
}

function noSchemaIntrospection(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      const name = node.name.value;
      if (name !== '__schema' && name !== '__type') return;
      context.reportError(
        new GraphQLError(
          `Introspection is turned off on this gateway, so "${name}" cannot be selected; the schema is published as schema.graphql.`,
          { nodes: node, extensions: { code: INTROSPECTION_DISABLED } },
        ),
      );
    },
  };
}
