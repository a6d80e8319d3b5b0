import { schema } from './index';
import { policyOf, type FieldPolicy } from './field-policy';

/** Each Query field's policy, as its definition declares it (field-policy.ts). */
export const QUERY_POLICIES: ReadonlyMap<string, FieldPolicy> = new Map(
  Object.values(schema.getQueryType()!.getFields()).flatMap((field) => {
    const declared = policyOf(field);
    return declared ? [[field.name, declared] as const] : [];
  }),
);

/** The Query fields that convert (and so cost quota); each occurrence in a document counts. */
export const CONVERSION_FIELDS: ReadonlySet<string> = new Set(
  [...QUERY_POLICIES].filter(([, p]) => p.conversions !== undefined).map(([name]) => name),
);
