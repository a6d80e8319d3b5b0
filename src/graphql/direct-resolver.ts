import {
  getNamedType,
  isInputObjectType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLInputType,
  type GraphQLResolveInfo,
} from 'graphql';
import { z } from 'zod';
import type { GraphQLContext } from './context';
import { zodValidationError } from './builder';

type Resolver = GraphQLFieldResolver<unknown, GraphQLContext>;

interface PothosFieldExtensions {
  pothosResolveWrapped?: boolean;
  pothosConfig?: { resolve?: Resolver; pothosOptions?: { validate?: unknown } };
}

/**
 * A root field's resolver for callers that checked the arguments already (the REST edge):
 * the field's own resolver, after its arguments' zod rules have run synchronously, with the error
 * plugin-zod gives (zodValidationError). plugin-zod's wrapper runs the same rules through
 * `parseAsync` and three awaits per call, a visible share of a directly executed conversion's own work
 * (`npm run bench` shows it). Every rule of this schema is synchronous (`decimals`, the size of `items`);
 * a rule that is not makes `safeParse` throw, and then the field's wrapped resolver answers instead.
 * A field with a field-level `validate`, or wrapped when it has no argument rule (another plugin),
 * keeps its wrapped resolver.
 *
 * It reads Pothos's private field extensions (`pothosResolveWrapped`, `pothosConfig`) and repeats
 * plugin-zod's argument validator (createArgsValidator, combine): @pothos/core 4.15.1 and
 * @pothos/plugin-zod 4.3.2 are pinned exactly in package.json, and test/graphql/direct-resolver.test.ts
 * (the API's ruled fields take this path, with the wrapped resolvers' refusals) fails when they change.
 */
export function directResolver(field: GraphQLField<unknown, GraphQLContext>): Resolver {
  const wrapped = field.resolve!;
  const extensions = field.extensions as PothosFieldExtensions;
  const own = extensions.pothosConfig?.resolve;
  if (!extensions.pothosResolveWrapped) return wrapped;
  const rules: Record<string, z.ZodType> = {};
  for (const arg of field.args) {
    const validator = (arg.extensions as { validator?: z.ZodType } | undefined)?.validator;
    if (validator) rules[arg.name] = ownRule(arg) ?? validator;
  }
  if (!own || extensions.pothosConfig?.pothosOptions?.validate !== undefined || Object.keys(rules).length === 0) return wrapped;
  // The object plugin-zod builds for the same rules (createArgsValidator).
  const schema = z.looseObject(rules);
  return (parent, args, context, info: GraphQLResolveInfo) => {
    let checked: ReturnType<typeof schema.safeParse>;
    try {
      checked = schema.safeParse(args);
    } catch {
      return wrapped(parent, args, context, info);
    }
    if (!checked.success) throw zodValidationError(checked.error);
    return own(parent, checked.data, context, info);
  };
}

/**
 * A required argument's own zod schema (`validate: { schema }`) when that is all its validator checks:
 * when it holds input objects none of whose fields has a rule of its own. plugin-zod then still pipes the
 * argument's schema into a `looseObject({})` per input object, which checks nothing but copies each
 * one (each of a batch's items, a large share of its allocations). The copy has
 * the same fields and values as the object, so the resolver's answer is the same; the parity tests
 * hold the edge to that. Undefined (keep plugin-zod's validator) for anything else.
 */
function ownRule(arg: GraphQLArgument): z.ZodType | undefined {
  // A nullable argument's validator also lets null and undefined through (plugin-zod's combine): kept.
  if (!isNonNullType(arg.type) || !isInputObjectType(getNamedType(arg.type))) return undefined;
  const validate = (arg.extensions as { pothosOptions?: { validate?: unknown } } | undefined)?.pothosOptions?.validate;
  const schema =
    typeof validate === 'object' && validate !== null && Object.keys(validate).length === 1
      ? (validate as { schema?: unknown }).schema
      : undefined;
  if (!(schema instanceof z.ZodType)) return undefined;
  return holdsRules(arg.type, new Set()) ? undefined : schema;
}

/** Whether an input type, or an input object inside it, has a field with a zod rule of its own. */
function holdsRules(type: GraphQLInputType, seen: Set<unknown>): boolean {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || seen.has(named)) return false;
  seen.add(named);
  if ((named.extensions as { pothosOptions?: { validate?: unknown } } | undefined)?.pothosOptions?.validate !== undefined) return true;
  return Object.values(named.getFields()).some(
    (input) =>
      (input.extensions as { pothosOptions?: { validate?: unknown } } | undefined)?.pothosOptions?.validate !== undefined ||
      holdsRules(input.type, seen),
  );
}
