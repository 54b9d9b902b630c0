// graphql-codegen configuration. Placeholder until the read graph lands.
export default {};
