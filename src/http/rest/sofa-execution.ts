import { useSofa } from '@graphql-yoga/plugin-sofa';
import { getNullableType, isListType } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import type { GraphQLContext } from '../../graphql/context';
import type { RequestContext } from '../../services/request-context';
import type { ApiError } from '../../domain/errors';
import { restErrorResponse, toApiError } from '../answer/errors';
import { budgetConversions } from '../graphql/conversion-budget';
import { logUnexpectedErrors } from '../graphql/error-codes';
import { pathFor } from '../routes';
import type { ResponseParts } from '../answer/answer-parts';
import type { RouteCall } from './endpoint';
import type { ServerContext } from '../front/request-context';

/** The checked list arguments of a route call SOFA executes, by its request's context (see useCheckedLists). */
const checkedLists = new WeakMap<RequestContext, Record<string, unknown>>();

/** SOFA's errors, by the answer its error handler gave (the handler cannot see the request). */
const sofaErrors = new WeakMap<Response, ApiError>();

/** Yoga, in whose pipeline (its plugins) SOFA answers. */
type SofaHost = Pick<YogaServerInstance<ServerContext, GraphQLContext>, 'handleRequest'>;

/**
 * A route's field executed by SOFA through Yoga (REST_EXECUTION=sofa), after the edge admitted the
 * request and checked its inputs: SOFA reads the inputs again its own way (it cuts the query
 * string at a second `?`, decodes path segments again, reads a comma list as one string), so it
 * is handed exactly what was checked, encoded afresh, and list arguments as checked. Its success is
 * the bare field value (JSON text), which `answer` wraps; its error is thrown to the edge, which
 * answers it as it answers any other.
 */
export function sofaExecution(host: SofaHost, answer: (call: RouteCall, json: string) => ResponseParts) {
  return async (call: RouteCall): Promise<ResponseParts> => {
    const { endpoint, context } = call;
    const route = endpoint.route;
    const url = new URL(pathFor(route, call.params), 'http://localhost');
    url.search = new URLSearchParams(call.query).toString();
    const lists =
      route.method === 'GET'
        ? endpoint.field!.args.filter((arg) => isListType(getNullableType(arg.type)) && call.args[arg.name] != null)
        : [];
    if (lists.length > 0) checkedLists.set(context, Object.fromEntries(lists.map((arg) => [arg.name, call.args[arg.name]])));
    const init: RequestInit =
      route.method === 'POST'
        ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: call.body }
        : { method: route.method };
    const response = await host.handleRequest(new Request(url, init), { requestContext: context });
    // Its error is rendered by the edge, as every error is (with the caller's parameter names and this request's id).
    const error = sofaErrors.get(response);
    if (error) throw error;
    if (response.status !== 200) throw new Error(`SOFA answered ${response.status} without its error handler`);
    return answer(call, `{"data":${await response.text()}}`);
  };
}

/**
 * SOFA inside Yoga, handed the list arguments the edge checked in place of its own reading of a
 * comma list, with the steps of execution the direct execution takes: the conversion budget (a
 * batch over it refused before any work) and unexpected errors logged with their path and the
 * request id. Only the edge's executions reach it: the front gives every /v1 path to the edge,
 * never to Yoga.
 */
export function useSofaExecution(config: Omit<Parameters<typeof useSofa>[0], 'errorHandler'>): Plugin<GraphQLContext> {
  const errorHandler = (errors: readonly unknown[]) => {
    const error = toApiError(errors[0]);
    const response = restErrorResponse(error, '');
    sofaErrors.set(response, error);
    return response;
  };
  const sofa = useSofa({ ...config, errorHandler: errorHandler as never }) as Plugin<GraphQLContext>;
  return {
    ...sofa,
    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const { requestContext, log } = args.contextValue;
      const refusal = await budgetConversions(args.document, args.operationName, args.variableValues, requestContext);
      if (refusal) return setResultAndStopExecution(refusal);
      const lists = checkedLists.get(requestContext);
      if (lists) setExecuteFn((given) => executeFn({ ...given, variableValues: { ...given.variableValues, ...lists } }));
      return {
        onExecuteDone({ result }) {
          if ('errors' in result) logUnexpectedErrors(result.errors, requestContext, log);
        },
      };
    },
  };
}
