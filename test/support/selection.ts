import {
  type GraphQLObjectType,
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { schema } from '../../src/schema/index.js';

function objectType(name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
  return type;
}

function isSmallLeafObject(type: GraphQLObjectType): boolean {
  return Object.values(type.getFields()).every(
    (f) => isLeafType(getNamedType(f.type)) && f.args.length === 0,
  );
}

/**
 * A selection of every field of `typeName` that needs no argument and holds a value (scalars,
 * enums, and small objects of scalars such as CurrencyFormat), plus the nested selections
 * given. Built from the schema, so a field added to a type is compared without editing tests.
 */
export function allFields(typeName: string, nested: Record<string, string> = {}): string {
  const parts: string[] = [];
  for (const field of Object.values(objectType(typeName).getFields())) {
    if (field.name in nested) {
      parts.push(`${field.name} ${nested[field.name]}`);
      continue;
    }
    if (field.args.some((a) => isNonNullType(a.type))) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named)) parts.push(field.name);
    else if (isObjectType(named) && isSmallLeafObject(named))
      parts.push(`${field.name} ${allFields(named.name)}`);
  }
  return `{ ${parts.join(' ')} }`;
}
