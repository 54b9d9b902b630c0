/**
 * A tool's input: the JSON Schema of an operation's variables, and the arguments a client sends
 * turned into those variables (amounts converted, everything checked by graphql-js's own
 * coercion) before anything runs. Each property's description is the description of where the
 * variable goes in the schema (the argument or input field), unless the document's comment says
 * otherwise (`# $name: text`).
 */
import {
  type ArgumentNode,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLScalarType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getVariableValues,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isSpecifiedScalarType,
  type OperationDefinitionNode,
  TypeInfo,
  typeFromAST,
  valueFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { AMOUNT_INPUT_SCHEMA, ArgumentError, MILLIUNITS, toMilliunits } from './money.js';
import { withValuesCut } from './quote.js';

export type JsonSchema = Record<string, unknown>;

/** One variable of a tool's operation. */
export interface ToolVariable {
  readonly name: string;
  readonly type: GraphQLInputType;
  readonly description: string | undefined;
}

/** The variables of `operation` with the descriptions of where they are used. */
export function variablesOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  overrides: ReadonlyMap<string, string>,
): ToolVariable[] {
  const used = usageDescriptions(schema, document);
  return (operation.variableDefinitions ?? []).map((definition) => {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) throw new Error(`$${name}: unknown type in the tool's document`);
    return { name, type, description: overrides.get(name) ?? used.get(name) };
  });
}

/** The JSON Schema of a tool's arguments: one property per variable. */
export function inputSchemaOf(
  operation: OperationDefinitionNode,
  variables: readonly ToolVariable[],
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const variable = variables.find((v) => v.name === name);
    if (!variable) continue;
    const property = typeSchema(variable.type, variable.description);
    if (definition.defaultValue) {
      const value = valueFromAST(definition.defaultValue, variable.type);
      if (value !== undefined) property.default = value;
    } else if (isNonNullType(variable.type)) {
      required.push(name);
    }
    properties[name] = property;
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The variables of one call: unknown arguments refused, amounts converted to milliunits, then
 * graphql-js's coercion (types, enums, required values, input fields), each failure naming the
 * argument. Throws ArgumentError; returns the variables as sent to the operation.
 */
export function variablesFromArguments(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: readonly ToolVariable[],
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const variable = variables.find((v) => v.name === name);
    if (!variable) {
      const names = variables.map((v) => v.name).join(', ') || 'none';
      throw new ArgumentError(name, `this tool takes no such argument (it takes: ${names}).`);
    }
    values[name] = withMilliunits(variable.type, value, name);
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], values, {
    maxErrors: 1,
  });
  if (coerced.errors) {
    const [error] = coerced.errors;
    const message = error?.message ?? 'invalid';
    const name = /^Variable "\$([^"]+)"/.exec(message)?.[1] ?? '?';
    throw new ArgumentError(
      name,
      withValuesCut(message.replace(/^Variable "\$[^"]+" /, ''), values),
    );
  }
  return values;
}

/** Private: `value` with every amount of `type` (at any depth) as milliunits. */
function withMilliunits(type: GraphQLInputType, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return withMilliunits(nullable.ofType, value, path);
    return value.map((item, index) => withMilliunits(nullable.ofType, item, `${path}[${index}]`));
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = nullable.getFields();
    const converted: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const field = fields[key];
      converted[key] = field ? withMilliunits(field.type, item, `${path}.${key}`) : item;
    }
    return converted;
  }
  if (isScalarType(nullable) && nullable.name === MILLIUNITS) return toMilliunits(value, path);
  return value;
}

/** Private: the JSON Schema of an input type, nullable ones also taking null. */
function typeSchema(type: GraphQLInputType, description: string | undefined): JsonSchema {
  const own = isNonNullType(type)
    ? namedSchema(type.ofType)
    : orNull(namedSchema(type as Exclude<GraphQLInputType, { ofType: unknown }>));
  return description ? { ...own, description } : own;
}

function namedSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return namedSchema(type.ofType);
  if (isListType(type)) return { type: 'array', items: typeSchema(type.ofType, undefined) };
  if (isInputObjectType(type)) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      if (field.deprecationReason) continue;
      properties[field.name] = typeSchema(field.type, field.description ?? undefined);
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    return {
      type: 'object',
      ...(type.description ? { description: type.description } : {}),
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    };
  }
  if (isEnumType(type)) {
    const values = type.getValues().filter((value) => !value.deprecationReason);
    const described = values.filter((value) => value.description);
    return {
      type: 'string',
      enum: values.map((value) => value.name),
      ...(described.length > 0
        ? {
            description: described
              .map((value) => `\`${value.name}\`: ${value.description}`)
              .join(' '),
          }
        : {}),
    };
  }
  return scalarSchema(type);
}

/** Private: JSON types of the built-in and custom scalars; amounts take two forms. */
function scalarSchema(type: GraphQLInputType): JsonSchema {
  const scalar = getNamedType(type) as GraphQLScalarType;
  if (scalar.name === MILLIUNITS) return { ...AMOUNT_INPUT_SCHEMA };
  const own = scalarJsonSchema(scalar);
  return scalar.description && !isSpecifiedScalarType(scalar)
    ? { ...own, description: scalar.description }
    : own;
}

/**
 * A scalar's JSON Schema as it travels in JSON: the built-in ones', `Date` as a date string, the
 * one graphql-scalars declares (`extensions.jsonSchema`), else the JSON type codegen is told.
 */
export function scalarJsonSchema(scalar: GraphQLScalarType): JsonSchema {
  switch (scalar.name) {
    case 'Int':
      return { type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'String':
    case 'ID':
      return { type: 'string' };
    case 'Date':
      return { type: 'string', format: 'date' };
  }
  const { jsonSchema, codegenScalarType } = scalar.extensions as {
    jsonSchema?: JsonSchema;
    codegenScalarType?: string;
  };
  if (jsonSchema) {
    const { title: _title, ...declared } = jsonSchema;
    return declared;
  }
  return { type: codegenScalarType === 'number' ? 'number' : 'string' };
}

/** `schema` or null: a simple type gains `null` (and its enum too); anything else an `anyOf`. */
export function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') {
    const { enum: values, ...rest } = schema;
    return {
      ...rest,
      type: [schema.type, 'null'],
      ...(Array.isArray(values) ? { enum: [...values, null] } : {}),
    };
  }
  const { description, ...rest } = schema;
  return {
    ...(typeof description === 'string' ? { description } : {}),
    anyOf: [rest, { type: 'null' }],
  };
}

/**
 * Private: each variable's description, from the argument or input field it is passed to (the
 * first use found in the document).
 */
function usageDescriptions(schema: GraphQLSchema, document: DocumentNode): Map<string, string> {
  const found = new Map<string, string>();
  const typeInfo = new TypeInfo(schema);
  let argument: GraphQLArgument | null = null;
  const fields: (GraphQLInputField | undefined)[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument: {
        enter: (_node: ArgumentNode) => {
          argument = typeInfo.getArgument() ?? null;
        },
        leave: () => {
          argument = null;
        },
      },
      ObjectField: {
        enter: (node) => {
          const parent = getNullableType(typeInfo.getParentInputType());
          fields.push(isInputObjectType(parent) ? parent.getFields()[node.name.value] : undefined);
        },
        leave: () => {
          fields.pop();
        },
      },
      Variable(node) {
        const name = node.name.value;
        const field = fields.at(-1);
        const description = (field ?? argument)?.description;
        if (description && !found.has(name)) found.set(name, description);
      },
    }),
  );
  return found;
}
