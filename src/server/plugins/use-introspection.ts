import type { ASTVisitor, ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../../errors/codes.js';

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
        gatewayError(
          `Introspection is turned off on this gateway, so "${name}" cannot be selected; the schema is published as schema.graphql.`,
          'INTROSPECTION_DISABLED',
          { nodes: node },
        ),
      );
    },
  };
}
