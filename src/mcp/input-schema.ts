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
import {
  MILLIUNITS_INPUT_SCHEMA,
  MILLIUNITS_SUFFIX,
  monthArgument,
  takeAmount,
  UNITS_INPUT_SCHEMA,
} from './amount-arguments.js';
import { ArgumentError, argumentErrors, MILLIUNITS } from './money.js';
import { NAME_NOTE, nameableKind } from './names.js';
import { withValuesCut } from './quote.js';

export type JsonSchema = Record<string, unknown>;

/** One variable of a tool's operation. */
export interface ToolVariable {
  readonly name: string;
  readonly type: GraphQLInputType;
  readonly description: string | undefined;
  /** For a variable of input objects (or a list of them): the fields a call may give. */
  readonly fields?: ItemFields;
}

/**
 * The fields a tool takes of an input object, from its document's `# $name.fields: id!
 * categoryId approved=true` line: `id!` is required, `categoryId` optional, `approved=true` is
 * set on every item by the tool (not an argument). Other fields of the type are refused, so a
 * tool made of a general write (`updateTransactions`) does one thing.
 */
export interface ItemFields {
  /** Field name → whether a call must give it. */
  readonly accepted: ReadonlyMap<string, boolean>;
  readonly fixed: Readonly<Record<string, unknown>>;
}

/** Parses `id! categoryId approved=true` (see ItemFields). */
export function itemFieldsOf(text: string): ItemFields {
  const accepted = new Map<string, boolean>();
  const fixed: Record<string, unknown> = {};
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const set = /^(\w+)=(.+)$/.exec(word);
    if (set?.[1] && set[2]) fixed[set[1]] = JSON.parse(set[2]);
    else accepted.set(word.replace(/!$/, ''), word.endsWith('!'));
  }
  return { accepted, fixed };
}

/** The variables of `operation` with the descriptions of where they are used. */
export function variablesOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  overrides: ReadonlyMap<string, string>,
  itemFields: ReadonlyMap<string, ItemFields> = new Map(),
): ToolVariable[] {
  const used = usageDescriptions(schema, document);
  return (operation.variableDefinitions ?? []).map((definition) => {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) throw new Error(`$${name}: unknown type in the tool's document`);
    const fields = itemFields.get(name);
    if (fields) {
      const object = getNamedType(type);
      const known = isInputObjectType(object) ? object.getFields() : undefined;
      for (const field of [...fields.accepted.keys(), ...Object.keys(fields.fixed)])
        if (!known?.[field])
          throw new Error(`$${name}.fields: ${field} is not a field of ${object.name}`);
    }
    return {
      name,
      type,
      description: overrides.get(name) ?? used.get(name),
      ...(fields ? { fields } : {}),
    };
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
    const own = nameable(name, typeSchema(variable.type, variable.description));
    const property = variable.fields ? restricted(own, variable.fields) : own;
    if (definition.defaultValue) {
      const value = valueFromAST(definition.defaultValue, variable.type);
      if (value !== undefined) property.default = value;
    } else if (isNonNullType(variable.type) && !isAmount(variable.type)) {
      required.push(name);
    }
    properties[name] = property;
    if (isAmount(variable.type))
      properties[`${name}${MILLIUNITS_SUFFIX}`] = { ...MILLIUNITS_INPUT_SCHEMA };
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The variables of one call: unknown arguments refused, amounts converted to milliunits (from
 * currency units, or from `…Milliunits`), months as `YYYY-MM` completed, then graphql-js's
 * coercion (types, enums, required values, input fields). Every invalid argument is reported at
 * once, each named: throws one ArgumentError saying all; returns the variables as sent.
 */
export function variablesFromArguments(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: readonly ToolVariable[],
  args: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const errors: ArgumentError[] = [];
  const values: Record<string, unknown> = {};
  const given: Record<string, unknown> = { ...args };
  for (const variable of variables) {
    if (!isAmount(variable.type)) continue;
    try {
      const amount = takeAmount(given, variable.name, variable.name);
      if (amount !== undefined) values[variable.name] = amount;
    } catch (error) {
      if (!(error instanceof ArgumentError)) throw error;
      errors.push(error);
    }
    delete given[variable.name];
  }
  for (const [name, value] of Object.entries(given)) {
    const variable = variables.find((v) => v.name === name);
    if (!variable) {
      const names = variables.map((v) => v.name).join(', ') || 'none';
      errors.push(
        new ArgumentError(name, `this tool takes no such argument (it takes: ${names}).`),
      );
      continue;
    }
    if (variable.fields) checkFields(value, variable.fields, name, errors);
    const taken = converted(variable.type, value, name, errors);
    values[name] = variable.fields ? withFixed(taken, variable.fields) : taken;
  }
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], values, {
    maxErrors: 50,
  });
  for (const error of coerced.errors ?? []) {
    const message = error.message;
    const name = /^Variable "\$([^"]+)"/.exec(message)?.[1] ?? '?';
    // Already refused above: graphql-js would only repeat it as "missing".
    if (errors.some((known) => known.argument === name || known.argument.startsWith(`${name}`)))
      continue;
    const variable = variables.find((v) => v.name === name);
    const reason = withValuesCut(message.replace(/^Variable "\$[^"]+" /, ''), values);
    errors.push(
      new ArgumentError(
        name,
        variable && isAmount(variable.type) && values[name] === undefined
          ? `required: the amount in currency units, or ${JSON.stringify(`${name}${MILLIUNITS_SUFFIX}`)} in milliunits.`
          : reason,
      ),
    );
  }
  if (errors.length > 0) throw argumentErrors(errors);
  return values;
}

/** Private: `schema` (an object, a list of them, or either or null) with only the accepted fields. */
function restricted(schema: JsonSchema, fields: ItemFields): JsonSchema {
  if (Array.isArray(schema.anyOf))
    return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map((s) => restricted(s, fields)) };
  if (schema.items) return { ...schema, items: restricted(schema.items as JsonSchema, fields) };
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return schema;
  const kept = Object.fromEntries(
    Object.entries(properties).filter(([key]) =>
      fields.accepted.has(
        key.endsWith(MILLIUNITS_SUFFIX) ? key.slice(0, -MILLIUNITS_SUFFIX.length) : key,
      ),
    ),
  );
  const required = [...fields.accepted].filter(([, must]) => must).map(([key]) => key);
  const { required: _all, ...rest } = schema;
  return { ...rest, properties: kept, ...(required.length > 0 ? { required } : {}) };
}

/** Private: refuses the fields a restricted variable does not take, and the missing ones. */
function checkFields(value: unknown, fields: ItemFields, path: string, errors: ArgumentError[]) {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      checkFields(item, fields, `${path}[${index}]`, errors);
    });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const takes = [...fields.accepted.keys()].join(', ');
  for (const key of Object.keys(value)) {
    const base = key.endsWith(MILLIUNITS_SUFFIX) ? key.slice(0, -MILLIUNITS_SUFFIX.length) : key;
    if (!fields.accepted.has(base))
      errors.push(
        new ArgumentError(`${path}.${key}`, `this tool takes no such field (it takes: ${takes}).`),
      );
  }
  for (const [key, must] of fields.accepted)
    if (must && (value as Record<string, unknown>)[key] === undefined)
      errors.push(new ArgumentError(`${path}.${key}`, 'required.'));
}

/** Private: each item with the fields the tool sets itself. */
function withFixed(value: unknown, fields: ItemFields): unknown {
  if (Array.isArray(value)) return value.map((item) => withFixed(item, fields));
  if (typeof value !== 'object' || value === null) return value;
  return { ...value, ...fields.fixed };
}

/** Whether `type` is an amount. */
function isAmount(type: GraphQLInputType): boolean {
  const nullable = getNullableType(type);
  return isScalarType(nullable) && nullable.name === MILLIUNITS;
}

/**
 * Private: `value` with every amount of `type` (at any depth) as milliunits and months completed;
 * what is refused is added to `errors` (and left as sent).
 */
function converted(
  type: GraphQLInputType,
  value: unknown,
  path: string,
  errors: ArgumentError[],
): unknown {
  if (value === null || value === undefined) return value;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return converted(nullable.ofType, value, path, errors);
    return value.map((item, index) =>
      converted(nullable.ofType, item, `${path}[${index}]`, errors),
    );
  }
  if (isInputObjectType(nullable)) {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = nullable.getFields();
    const given: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const result: Record<string, unknown> = {};
    for (const field of Object.values(fields)) {
      if (!isAmount(field.type)) continue;
      try {
        const amount = takeAmount(given, field.name, `${path}.${field.name}`);
        if (amount !== undefined) result[field.name] = amount;
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        errors.push(error);
      }
      delete given[field.name];
    }
    for (const [key, item] of Object.entries(given)) {
      const field = fields[key];
      result[key] = field ? converted(field.type, item, `${path}.${key}`, errors) : item;
    }
    return result;
  }
  if (isScalarType(nullable) && nullable.name === 'MonthSelector') return monthArgument(value);
  if (isAmount(nullable)) {
    // An amount inside a list: currency units.
    try {
      return takeAmount({ amount: value }, 'amount', path);
    } catch (error) {
      if (!(error instanceof ArgumentError)) throw error;
      errors.push(error);
      return value;
    }
  }
  return value;
}

/** Private: the JSON Schema of an input type, nullable ones also taking null. */
function typeSchema(type: GraphQLInputType, description: string | undefined): JsonSchema {
  const own = isNonNullType(type)
    ? namedSchema(type.ofType)
    : orNull(namedSchema(type as Exclude<GraphQLInputType, { ofType: unknown }>));
  if (isAmount(type) && description)
    return {
      ...own,
      description: `${withoutRest(description)} ${UNITS_INPUT_SCHEMA.description}`,
    };
  return description ? { ...own, description: withoutRest(description) } : own;
}

/**
 * Private: the schema of an argument that takes an account's, category's or payee's id: any
 * string, since a name goes too (`names.ts`).
 */
function nameable(name: string, schema: JsonSchema): JsonSchema {
  if (!nameableKind(name)) return schema;
  const { format: _uuid, description, ...rest } = schema;
  return {
    ...rest,
    description: `${typeof description === 'string' ? `${description.replace(/\bThe REST id of\b/, 'The id of')} ` : ''}${NAME_NOTE}`,
  };
}

/** Whether a tool's input schema has an argument that may name an account, category or payee. */
export function takesNames(schema: JsonSchema): boolean {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (nameableKind(name)) return true;
    const items = property.items as JsonSchema | undefined;
    if (takesNames(property) || (items && takesNames(items))) return true;
    for (const variant of (property.anyOf as JsonSchema[] | undefined) ?? [])
      if (takesNames(variant) || (variant.items && takesNames(variant.items as JsonSchema)))
        return true;
  }
  return false;
}

/** Private: a schema description without its REST asides: a model calls tools, not REST. */
function withoutRest(text: string): string {
  return text.replace(/\s*\(REST [^)]*\)/g, '');
}

function namedSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return namedSchema(type.ofType);
  if (isListType(type)) return { type: 'array', items: typeSchema(type.ofType, undefined) };
  if (isInputObjectType(type)) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      if (field.deprecationReason) continue;
      properties[field.name] = nameable(
        field.name,
        typeSchema(field.type, field.description ?? undefined),
      );
      if (isAmount(field.type)) {
        properties[`${field.name}${MILLIUNITS_SUFFIX}`] = { ...MILLIUNITS_INPUT_SCHEMA };
        continue;
      }
      if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(field.name);
    }
    return {
      type: 'object',
      ...(type.description ? { description: withoutRest(type.description) } : {}),
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
  if (scalar.name === MILLIUNITS) return { ...UNITS_INPUT_SCHEMA };
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
