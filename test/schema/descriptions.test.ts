import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

/** Every type, field, argument and enum value of the schema that has no description. */
function undescribed(): string[] {
  const missing: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (!type.description) missing.push(`type ${type.name}`);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) {
          if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (!value.description) missing.push(`${type.name}.${value.name}`);
      }
    }
  }
  return missing;
}

describe('schema descriptions', () => {
  it('describe every type, field, argument and enum value', () => {
    expect(undescribed()).toEqual([]);
  });

  it('keep what a field says itself over the shared wording', () => {
    const month = schema.getType('Month');
    expect(isObjectType(month) && month.getFields().id?.description).toContain('<plan id>:<month>');
  });
});
