import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { cacheConfig } from '@plans-gateway/client-kit/apollo';
import { createClient as createWsClient } from 'graphql-ws';
import { type Settings, webSocketUrl } from './settings.js';

/**
 * Apollo Client over the gateway: queries and mutations over HTTP, subscriptions over
 * graphql-ws, one normalized cache configured by the client kit (possible types, pagination of
 * every connection). Mutation payloads' `changes` and subscription events carry rows with ids,
 * so the cache updates every panel that shows them.
 */
export function createApolloClient(settings: Settings): ApolloClient {
  const authorization = `Bearer ${settings.token}`;
  const http = new HttpLink({ uri: settings.gateway, headers: { authorization } });
  const ws = new GraphQLWsLink(
    createWsClient({ url: webSocketUrl(settings.gateway), connectionParams: { authorization } }),
  );
  const isSubscription = ({ query }: ApolloLink.Operation) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  return new ApolloClient({
    link: ApolloLink.split(isSubscription, ws, http),
    cache: new InMemoryCache(cacheConfig()),
  });
}
