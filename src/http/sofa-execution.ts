import { useSofa } from '@graphql-yoga/plugin-sofa';
import { getNullableType, isListType } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context';
import type { RequestContext } from '../services/request-context';
import { pathFor, pathParamOf } from './routes';
import type { ResponseParts } from './rest-response';
import type { RouteCall } from './edge';
import { isExecution, type ServerContext } from './request-context';

/** The checked list arguments of a route call SOFA executes, by its request's context (see useCheckedLists). */
const checkedLists = new WeakMap<RequestContext, Record<string, unknown>>();

/** Yoga, in whose pipeline (its plugins) SOFA answers. */
type SofaHost = Pick<YogaServerInstance<ServerContext, GraphQLContext>, 'handleRequest'>;

/**
 * A route's field executed by SOFA through Yoga (REST_FAST_LANE=off), after the edge admitted the
 * request and checked its inputs: SOFA reads the inputs again its own way (it cuts the query
 * string at a second `?`, decodes path segments again, reads a comma list as one string), so it
 * is handed exactly what was checked, encoded afresh, and list arguments as checked. Its success is
 * the bare field value (JSON text), which `answer` wraps; its error gets this request's id (SOFA's
 * error handler cannot see the request) and the REST caller's parameter name.
 */
export function sofaExecution(host: SofaHost, answer: (call: RouteCall, json: string) => ResponseParts) {
  return async (call: RouteCall): Promise<ResponseParts> => {
    const { endpoint, context } = call;
    const route = endpoint.route;
    const url = new URL(pathFor(route, call.params), 'http://localhost');
    url.search = new URLSearchParams(call.query).toString();
    const lists = route.method === 'GET' ? endpoint.field!.args.filter((arg) => isListType(getNullableType(arg.type)) && call.args[arg.name] != null) : [];
    if (lists.length > 0) checkedLists.set(context, Object.fromEntries(lists.map((arg) => [arg.name, call.args[arg.name]])));
    const init: RequestInit = route.method === 'POST' ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: call.body } : { method: route.method };
    const response = await host.handleRequest(new Request(url, init), { requestContext: context, execution: true });
    const text = await response.text();
    if (response.status === 200) return answer(call, `{"data":${text}}`);
    const payload = JSON.parse(text) as { error?: { code?: string; requestId?: string; param?: string } };
    if (payload.error) {
      payload.error.requestId = context.requestId;
      context.errorCode ??= payload.error.code;
      if (payload.error.param !== undefined) payload.error.param = pathParamOf(route, payload.error.param);
    }
    const body = JSON.stringify(payload);
    return { status: response.status, headers: { ...Object.fromEntries(response.headers), 'content-length': String(Buffer.byteLength(body)) }, body };
  };
}

/**
 * SOFA inside Yoga, for the edge's executions only (a request that reaches Yoga any other way never
 * skips the edge's admission), handed the list arguments the edge checked in place of its own
 * reading of a comma list.
 */
export function useSofaExecution(config: Parameters<typeof useSofa>[0]): Plugin<GraphQLContext> {
  const sofa = useSofa(config) as Plugin<GraphQLContext>;
  return {
    ...sofa,
    onRequest: (payload) => (isExecution(payload.serverContext) ? sofa.onRequest!(payload) : undefined),
    onExecute({ args, executeFn, setExecuteFn }) {
      const lists = checkedLists.get(args.contextValue.requestContext);
      if (lists) setExecuteFn((given) => executeFn({ ...given, variableValues: { ...given.variableValues, ...lists } }));
    },
  };
}
