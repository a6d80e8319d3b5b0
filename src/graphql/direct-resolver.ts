import type { GraphQLField, GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import type { GraphQLContext } from './context';
import { zodValidationError } from './builder';

type Resolver = GraphQLFieldResolver<unknown, GraphQLContext>;

interface PothosFieldExtensions {
  pothosResolveWrapped?: boolean;
  pothosConfig?: { resolve?: Resolver; pothosOptions?: { validate?: unknown } };
}

/**
 * A root field's resolver for callers that checked the arguments already (the REST fast lane):
 * the field's own resolver, after its arguments' zod rules have run synchronously, with the error
 * plugin-zod gives (zodValidationError). plugin-zod's wrapper runs the same rules through
 * `parseAsync` and three awaits per call, a tenth of a fast-lane conversion's own work
 * (docs/benchmarks.md). Every rule of this schema is synchronous (`decimals`, the size of `items`);
 * a rule that is not makes `safeParse` throw, and then the field's wrapped resolver answers instead.
 * A field with a field-level `validate`, or wrapped when it has no argument rule (another plugin),
 * keeps its wrapped resolver.
 */
export function directResolver(field: GraphQLField<unknown, GraphQLContext>): Resolver {
  const wrapped = field.resolve!;
  const extensions = field.extensions as PothosFieldExtensions;
  const own = extensions.pothosConfig?.resolve;
  if (!extensions.pothosResolveWrapped) return wrapped;
  const rules: Record<string, z.ZodType> = {};
  for (const arg of field.args) {
    const validator = (arg.extensions as { validator?: z.ZodType } | undefined)?.validator;
    if (validator) rules[arg.name] = validator;
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
