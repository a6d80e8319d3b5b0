import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import type { ExecutionResult } from 'graphql';
import { z } from 'zod';
import type { RunDocument } from '../run-document';

/** Every tool only reads: clients may allow them without asking, and repeat them safely. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

/**
 * A tool: its name, what an agent reads to choose and call it, its input schema, the shapes of
 * its structured results (one per kind of answer; a refusal's shape is added for every tool) and
 * what it does.
 */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  outputSchemas: readonly [z.ZodObject, ...z.ZodObject[]];
  run(args: z.infer<z.ZodObject<Shape>>, runDocument: RunDocument): Promise<CallToolResult>;
}

export const dateArgument = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
  .describe('A day, YYYY-MM-DD. The rates used are those of the latest ECB publication on or before it. Needs the Developer plan.');

export const decimalsArgument = z
  .number()
  .int()
  .min(0)
  .max(40)
  .describe('Round the result once to this many places (0 to 40). Without it the result is exact (or 40 significant digits).');

/** One currency code, a comma list, or a list: agents write all three. */
export const codesArgument = z.union([z.string(), z.array(z.string())]);

/** A code list argument as GraphQL takes it: a list of trimmed, non-empty codes. */
export function codeList(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : value.split(',')).map((code) => code.trim()).filter((code) => code !== '');
}

/** An object without the members that are undefined: GraphQL variables leave absent arguments out. */
export function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** A decimal number as the API writes it: a string, never a JSON number. */
export const decimalText = z.string();

/** What a call cost (costOf). */
export const costSchema = z.object({ chargedConversions: z.number().int(), quotaRemaining: z.number().int().optional() });

/** The day asked for, the publication used and why (the DateResolution selection of the documents). */
export const resolutionSchema = z.object({
  requested: z.string(),
  publication: z.string(),
  carriedForward: z.boolean(),
  reason: z.string().nullable(),
});

/** The day a currency answer used, and why that one, in a sentence. */
export interface Resolution {
  requested: string;
  publication: string;
  carriedForward: boolean;
  reason: string | null;
}

const REASONS: Record<string, string> = {
  weekend: 'a weekend',
  holiday: 'a TARGET holiday',
  'not-yet-published': 'not published yet',
  'no-publication': 'a day without a publication',
  stale: 'not held yet (the rates held are behind the ECB calendar)',
  'weekly-table': 'in the week of a weekly table',
};

/** "the ECB publication of …", or the publication of another source (its id, as `source` names it: "nbp; nbu" for two joined). */
export function explainPublication(publication: string, resolved: Resolution | null | undefined, source = 'ecb'): string {
  const whose = source === 'ecb' ? 'the ECB publication' : `the ${source} publication`;
  if (!resolved || !resolved.carriedForward) return `${whose} of ${publication}`;
  const why = resolved.reason ? (REASONS[resolved.reason] ?? resolved.reason) : 'a day without a publication';
  return `${whose} of ${publication} (${resolved.requested} is ${why}, so the latest publication before it applies)`;
}

/** What a call cost, from the result's extensions: conversions charged, and the quota left. */
export function costOf(result: ExecutionResult): { chargedConversions: number; quotaRemaining?: number } {
  const extensions = result.extensions as { cost?: { chargedConversions: number }; quota?: { remaining: number } } | undefined;
  const cost: { chargedConversions: number; quotaRemaining?: number } = { chargedConversions: extensions?.cost?.chargedConversions ?? 0 };
  if (extensions?.quota) cost.quotaRemaining = extensions.quota.remaining;
  return cost;
}
