/**
 * Enum values over a REST value list, each with its description, in the list's order. The
 * description record must name every value, so a value added upstream cannot go undescribed.
 */
export function describedValues<const V extends string>(
  values: readonly V[],
  descriptions: Readonly<Record<V, string>>,
): Record<V, { value: V; description: string }> {
  const described = {} as Record<V, { value: V; description: string }>;
  for (const value of values) described[value] = { value, description: descriptions[value] };
  return described;
}
