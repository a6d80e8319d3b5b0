import { Kind, type ArgumentNode, type DirectiveNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';

/** What a request's variables bind, as sent. */
export type Variables = Readonly<Record<string, unknown>> | null | undefined;

/** The operation a request runs: the one named, or the only one. */
export function operationOf(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return operations.find((o) => o.name?.value === name);
  return operations.length === 1 ? operations[0] : undefined;
}

/** Whether `@skip` and `@include` keep a selection (a condition whose variable is not a boolean keeps it). */
export function included(directives: readonly DirectiveNode[] | undefined, variables: Variables): boolean {
  for (const directive of directives ?? []) {
    const condition = conditionOf(directive.arguments, variables);
    if (directive.name.value === 'skip' && condition === true) return false;
    if (directive.name.value === 'include' && condition === false) return false;
  }
  return true;
}

function conditionOf(args: readonly ArgumentNode[] | undefined, variables: Variables): boolean | undefined {
  const value = args?.find((a) => a.name.value === 'if')?.value;
  if (value?.kind === Kind.BOOLEAN) return value.value;
  if (value?.kind === Kind.VARIABLE) {
    const bound = variables?.[value.name.value];
    return typeof bound === 'boolean' ? bound : undefined;
  }
  return undefined;
}
